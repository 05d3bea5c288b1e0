package modelserver

import (
	"net"
	"sync"
	"testing"
)

// fakeListener hands out pipe connections and records, for each Accept
// past the first n, whether a connection had been closed by then.
type fakeListener struct {
	net.Listener
	mu       sync.Mutex
	accepted int
	closed   int
	late     chan int // closed connections when Accept n+1 was called
	n        int
}

func (l *fakeListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	l.accepted++
	if l.accepted > l.n {
		l.late <- l.closed
	}
	l.mu.Unlock()
	a, b := net.Pipe()
	b.Close()
	return &countedConn{Conn: a, l: l}, nil
}

func (l *fakeListener) Close() error { return nil }

type countedConn struct {
	net.Conn
	l *fakeListener
}

func (c *countedConn) Close() error {
	c.l.mu.Lock()
	c.l.closed++
	c.l.mu.Unlock()
	return c.Conn.Close()
}

// TestListenerKeepsAtMostNConnections: past n open connections, Accept
// waits for one to close before it takes another from the kernel; a
// connection closed twice (a hijacked one: its handler, then the server)
// gives its place back once.
func TestListenerKeepsAtMostNConnections(t *testing.T) {
	const n = 3
	inner := &fakeListener{n: n, late: make(chan int, 1)}
	ln := limitListener(inner, n)
	var conns []net.Conn
	for range n {
		c, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	next := make(chan net.Conn)
	go func() {
		c, _ := ln.Accept()
		next <- c
	}()
	conns[0].Close()
	conns[0].Close()
	if closed := <-inner.late; closed == 0 {
		t.Errorf("connection %d was taken while %d were open", n+1, n)
	}
	c := <-next
	// Still n open (two of the first, the new one): the next Accept waits
	// again, and closing the listener ends the wait.
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Close()
		}
		next <- nil
	}()
	ln.Close()
	<-next
	c.Close()
	for _, c := range conns[1:] {
		c.Close()
	}
	select {
	case got := <-inner.late:
		t.Errorf("a connection was taken past the bound after the listener closed (%d closed)", got)
	default:
	}
}
