package testenv

import "sync"

// CountingWriter counts the bytes written to it and keeps none: what a
// test of a bound measures an output with (a trace, a log) without
// holding it. It is safe for concurrent use.
type CountingWriter struct {
	mu sync.Mutex
	n  int
}

func (w *CountingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n += len(p)
	return len(p), nil
}

// Count is how many bytes were written.
func (w *CountingWriter) Count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}
