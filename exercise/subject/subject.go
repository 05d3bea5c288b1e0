// Package subject runs a learner's program (the subject) and talks to it
// with the subject protocol: one JSON request per line on its stdin, one
// JSON response per line on its stdout, in order; its stderr is its log.
// docs/protocol.md is the contract; schema/protocol.schema.json defines
// every message.
//
// A Subject is started once per run and answers hello first. Every response
// is read with a bounded reader (MaxResponseBytes), within a per-request
// deadline (Timeout; StartupTimeout for hello), parsed strictly and
// validated against the schema before the caller sees it. Anything else is
// a *ProtocolError naming the stdout line and why: a line that is not JSON,
// not an object, too long, blank, a wrong id, a response the schema
// rejects, no answer in time, or a subject that exited. A protocol error is
// never the learner's failing answer; after one the subject is killed and
// every later call returns the same error.
//
// The subject runs in its own process group, so that killing it (on a
// timeout, a protocol error, or at Close) also kills what it started (go
// run's compiled binary, a shell's children). The last StderrTailBytes of
// its stderr are kept for reports.
package subject

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/tracecheck/tracecheck/internal/procgroup"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/schema"
)

// ProtocolVersion is the protocol version this package speaks.
const ProtocolVersion = 1

// Defaults for Options.
const (
	DefaultTimeout          = 10 * time.Second
	DefaultStartupTimeout   = 60 * time.Second
	DefaultMaxResponseBytes = 8 << 20
	DefaultStderrTailBytes  = 64 << 10
)

// closeGrace is how long Close waits for a subject to exit by itself once
// its stdin is closed, and for its stdout and stderr to end, before it
// kills the process group.
const closeGrace = 5 * time.Second

// Options configure Start. Zero fields take the defaults.
type Options struct {
	Timeout          time.Duration // per request
	StartupTimeout   time.Duration // for the hello response (interpreters and `go run` start slowly)
	MaxResponseBytes int           // the longest response line, newline excluded
	StderrTailBytes  int           // how much of stderr to keep
	Dir              string        // working directory; "" is the caller's
	Env              []string      // environment; nil is the caller's
}

func (o *Options) defaults() {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.StartupTimeout <= 0 {
		// Never shorter than a request's own time, when not set.
		o.StartupTimeout = max(DefaultStartupTimeout, o.Timeout)
	}
	// A StartupTimeout the caller set is kept, even below Timeout: it
	// was raised to Timeout silently, and the error then named a time
	// no flag said.
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if o.StderrTailBytes <= 0 {
		o.StderrTailBytes = DefaultStderrTailBytes
	}
}

// Hello is what the subject said about itself.
type Hello struct {
	Protocol int      `json:"protocol"`
	Name     string   `json:"name"`
	Language string   `json:"language"`
	Ops      []string `json:"ops"`
}

// Supports reports whether the subject listed op.
func (h *Hello) Supports(op string) bool {
	for _, o := range h.Ops {
		if o == op {
			return true
		}
	}
	return false
}

// Response is one answer of the subject, valid under the schema.
type Response struct {
	Request jsonv.Value // what was sent, id and op included
	Value   jsonv.Value // the whole response object
	Line    int         // its stdout line
	OK      bool
	Error   *RemoteError // when !OK
}

// Get returns a member of the response.
func (r *Response) Get(key string) jsonv.Value {
	v, _ := r.Value.Get(key)
	return v
}

// RemoteError is an error response: the subject refused the request.
type RemoteError struct {
	Message string
	Code    string // "" when the subject gave none
}

// StartError is a command that could not be started at all (not found, not
// executable): the command line is wrong, not the subject's answers.
type StartError struct {
	Argv []string
	Err  error
}

func (e *StartError) Error() string {
	return fmt.Sprintf("cannot start %s: %v", e.Argv[0], e.Err)
}

func (e *StartError) Unwrap() error { return e.Err }

// ProtocolError is a subject that broke the protocol. Error() is one line:
// the stdout line when there is one, the request, and why.
type ProtocolError struct {
	Line    int    // 1-based stdout line at fault; 0 when no line is (a timeout, an exit)
	ID      int64  // the request being answered; 0 after the last one
	Op      string // its op
	Reason  string
	Excerpt string // the start of the offending line, Go-quoted
}

func (e *ProtocolError) Error() string {
	var b strings.Builder
	if e.Line > 0 {
		fmt.Fprintf(&b, "stdout line %d", e.Line)
		if e.ID > 0 {
			fmt.Fprintf(&b, " (the response to request %d, op %s)", e.ID, e.Op)
		}
	} else if e.ID > 0 {
		fmt.Fprintf(&b, "request %d (op %s)", e.ID, e.Op)
	} else {
		b.WriteString("the subject")
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	if e.Excerpt != "" {
		b.WriteString(": ")
		b.WriteString(e.Excerpt)
	}
	return b.String()
}

// Subject is a running subject.
type Subject struct {
	opts  Options
	argv  []string
	cmd   *exec.Cmd
	stdin *os.File
	out   *os.File
	rd    *bufio.Reader
	line  int   // stdout lines read
	next  int64 // the next request id

	exited  chan struct{} // closed when Wait returns
	waitErr error

	mu         sync.Mutex
	tail       []byte // the last StderrTailBytes of stderr
	tailCut    bool   // bytes were dropped before tail
	stderrDone chan struct{}

	broken *ProtocolError // the first protocol error; every later call returns it
	closed bool
	hello  *Hello
}

// Start starts argv (argv[0] is looked up in PATH) with opts. It returns a
// *StartError when the program cannot be started.
func Start(argv []string, opts Options) (*Subject, error) {
	if len(argv) == 0 {
		return nil, &StartError{Argv: []string{""}, Err: errors.New("no command")}
	}
	opts.defaults()
	cmd := exec.Command(argv[0], argv[1:]...)
	if cmd.Err != nil {
		return nil, &StartError{Argv: argv, Err: cmd.Err}
	}
	cmd.Dir, cmd.Env = opts.Dir, opts.Env
	procgroup.Set(cmd)

	// Pipes of our own (not cmd.StdoutPipe): Wait must not close the read
	// ends under a reader, and the read ends take deadlines.
	var files []*os.File
	pipe := func() (*os.File, *os.File, error) {
		r, w, err := os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, &StartError{Argv: argv, Err: err}
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, &StartError{Argv: argv, Err: err}
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return nil, &StartError{Argv: argv, Err: err}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, &StartError{Argv: argv, Err: err}
	}
	// The child holds its own copies now.
	inR.Close()
	outW.Close()
	errW.Close()

	s := &Subject{
		opts:       opts,
		argv:       argv,
		cmd:        cmd,
		stdin:      inW,
		out:        outR,
		rd:         bufio.NewReaderSize(outR, 64<<10),
		next:       1,
		exited:     make(chan struct{}),
		stderrDone: make(chan struct{}),
	}
	go func() {
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	go s.readStderr(errR)
	return s, nil
}

// readStderr keeps the tail of the subject's stderr until it ends.
func (s *Subject) readStderr(r *os.File) {
	defer close(s.stderrDone)
	defer r.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			s.mu.Lock()
			s.tail = append(s.tail, buf[:n]...)
			if over := len(s.tail) - s.opts.StderrTailBytes; over > 0 {
				s.tail = append(s.tail[:0], s.tail[over:]...)
				s.tailCut = true
			}
			s.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// StderrTail returns at most the last n lines of what the subject wrote on
// stderr so far (fewer when the kept tail holds fewer), without the final
// newline. Lines are as written: callers printing them to a terminal must
// make them safe.
func (s *Subject) StderrTail(n int) []string {
	s.mu.Lock()
	text := string(s.tail)
	cut := s.tailCut
	s.mu.Unlock()
	text = strings.TrimRight(text, "\n")
	if text == "" {
		return nil
	}
	lines := strings.Split(text, "\n")
	if cut && len(lines) > 0 {
		lines = lines[1:] // the first kept line may be a fragment
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}

// Argv returns the command line the subject was started with.
func (s *Subject) Argv() []string { return s.argv }

// Hello sends the handshake and checks the answer: a hello_response whose
// protocol is ProtocolVersion. Call it once, first.
func (s *Subject) Hello() (*Hello, error) {
	limits := jsonv.Obj(
		jsonv.M("timeout_ms", jsonv.Int(s.opts.Timeout.Milliseconds())),
		jsonv.M("max_response_bytes", jsonv.Int(int64(s.opts.MaxResponseBytes))),
	)
	resp, err := s.call("hello", s.opts.StartupTimeout, jsonv.M("protocol", jsonv.Int(ProtocolVersion)), jsonv.M("limits", limits))
	if err != nil {
		return nil, err
	}
	if !resp.OK {
		return nil, s.fail(&ProtocolError{Line: resp.Line, ID: 1, Op: "hello", Reason: "the subject answered hello with an error (every subject must answer hello): " + resp.Error.Message})
	}
	h := &Hello{Name: str(resp.Get("name")), Language: str(resp.Get("language"))}
	p, _ := resp.Get("protocol").Int64()
	h.Protocol = int(p)
	for _, o := range resp.Get("ops").Elems() {
		h.Ops = append(h.Ops, o.Text())
	}
	if h.Protocol != ProtocolVersion {
		return nil, s.fail(&ProtocolError{Line: resp.Line, ID: 1, Op: "hello",
			Reason: fmt.Sprintf("the subject speaks protocol %d; tracecheck speaks protocol %d", h.Protocol, ProtocolVersion)})
	}
	s.hello = h
	return h, nil
}

func str(v jsonv.Value) string {
	if v.Kind() == jsonv.String {
		return v.Text()
	}
	return ""
}

// Call sends one request (op and its fields; Call adds id) and returns the
// response, which has passed the schema: an error response, or the op's
// response. The error is a *ProtocolError.
func (s *Subject) Call(op string, fields ...jsonv.Member) (*Response, error) {
	if s.hello == nil && s.broken == nil {
		return nil, errors.New("subject: Call before Hello")
	}
	return s.call(op, s.opts.Timeout, fields...)
}

func (s *Subject) call(op string, timeout time.Duration, fields ...jsonv.Member) (*Response, error) {
	if s.broken != nil {
		return nil, s.broken
	}
	if s.closed {
		return nil, errors.New("subject: Call after Close")
	}
	id := s.next
	s.next++
	req := jsonv.Obj(append([]jsonv.Member{jsonv.M("id", jsonv.Int(id)), jsonv.M("op", jsonv.Str(op))}, fields...)...)
	perr := func(line int, reason string, raw []byte) error {
		return s.fail(&ProtocolError{Line: line, ID: id, Op: op, Reason: reason, Excerpt: excerpt(raw)})
	}

	flag := "--timeout"
	if op == "hello" {
		flag = "--startup-timeout"
	}
	deadline := time.Now().Add(timeout)
	wire := append(req.AppendJSON(nil), '\n')
	s.stdin.SetWriteDeadline(deadline)
	if _, err := s.stdin.Write(wire); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, perr(0, fmt.Sprintf("the subject did not read the request within %s (%s); it was killed", timeout, flag), nil)
		}
		return nil, perr(0, "the subject "+s.exitStatus()+" before reading the request", nil)
	}

	s.out.SetReadDeadline(deadline)
	raw, err := s.readLine()
	lineNo := s.line
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, perr(0, fmt.Sprintf("no response within %s (%s); the subject was killed", timeout, flag), nil)
	case errors.Is(err, errTooLong):
		return nil, perr(lineNo, fmt.Sprintf("the line is longer than %d bytes (--max-response); the subject was killed", s.opts.MaxResponseBytes), raw)
	case errors.Is(err, io.EOF) && len(raw) == 0:
		return nil, perr(0, "the subject "+s.exitStatus()+" without answering (stdout ended after line "+fmt.Sprint(s.line)+")", nil)
	case errors.Is(err, io.EOF):
		return nil, perr(lineNo, "the line has no newline: the subject "+s.exitStatus()+" in the middle of it", raw)
	case err != nil:
		return nil, perr(lineNo, "reading stdout: "+err.Error(), nil)
	}

	resp, reason := decode(op, req, raw)
	if reason != "" {
		return nil, perr(lineNo, reason, raw)
	}
	resp.Line = lineNo
	return resp, nil
}

// Decode checks raw as the response to req (a request object holding id
// and op) exactly as a running subject's answer is checked: a JSON object,
// the request's id, valid under the protocol schema. The error is a
// *ProtocolError without a line. It lets an in-process implementation be
// checked like a process.
func Decode(req jsonv.Value, raw []byte) (*Response, error) {
	op, _ := req.Get("op")
	resp, reason := decode(op.Text(), req, raw)
	if reason != "" {
		id, _ := mustGet(req, "id").Int64()
		return nil, &ProtocolError{ID: id, Op: op.Text(), Reason: reason, Excerpt: excerpt(raw)}
	}
	return resp, nil
}

// decode checks one response line; reason says why it is not the response
// to req.
func decode(op string, req jsonv.Value, raw []byte) (*Response, string) {
	v, reason := parseResponse(raw)
	if reason != "" {
		return nil, reason
	}
	if err := schema.ValidateProtocol("response_envelope", v.Interface(schema.Number)); err != nil {
		return nil, "not a response: " + schemaReason(err)
	}
	id, _ := mustGet(req, "id").Int64()
	if got, _ := mustGet(v, "id").Int64(); got != id {
		return nil, fmt.Sprintf("the response's id is %s where %d was expected (one response per request, in order, echoing its id)", mustGet(v, "id").Text(), id)
	}
	resp := &Response{Request: req, Value: v, OK: mustGet(v, "ok").IsTrue()}
	def := op + "_response"
	if !resp.OK {
		def = "error_response"
	}
	if err := schema.ValidateProtocol(def, v.Interface(schema.Number)); err != nil {
		return nil, fmt.Sprintf("the response does not match the protocol (%s): %s", def, schemaReason(err))
	}
	if !resp.OK {
		e := mustGet(v, "error")
		resp.Error = &RemoteError{Message: mustGet(e, "message").Text()}
		if c, ok := e.Get("code"); ok {
			resp.Error.Code = c.Text()
		}
	}
	return resp, ""
}

func mustGet(v jsonv.Value, key string) jsonv.Value {
	x, _ := v.Get(key)
	return x
}

// parseResponse parses one stdout line; reason says why it is not a JSON
// object.
func parseResponse(raw []byte) (jsonv.Value, string) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return jsonv.Value{}, "a blank line (stdout carries only responses, one per line; write logs to stderr)"
	}
	v, err := jsonv.Parse(raw)
	if err != nil {
		var se *jsonv.SyntaxError
		if errors.As(err, &se) {
			return jsonv.Value{}, fmt.Sprintf("not JSON (%s at column %d: %s; stdout carries only responses, write logs to stderr)", se.Code, se.Offset+1, se.Msg)
		}
		return jsonv.Value{}, "not JSON: " + err.Error()
	}
	if v.Kind() != jsonv.Object {
		return jsonv.Value{}, fmt.Sprintf("a JSON %s, not an object", v.Kind())
	}
	return v, ""
}

// schemaReason is the first violations of a schema error, on one line.
func schemaReason(err error) string {
	var se *schema.Error
	if !errors.As(err, &se) {
		return err.Error()
	}
	parts := make([]string, 0, 3)
	for i, v := range se.Violations {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(se.Violations)-3))
			break
		}
		parts = append(parts, v.String())
	}
	return strings.Join(parts, "; ")
}

var errTooLong = errors.New("line too long")

// readLine reads one line, without its newline, holding at most
// MaxResponseBytes of it. On errTooLong it returns the first bytes.
func (s *Subject) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := s.rd.ReadSlice('\n')
		if len(line)+len(chunk) > s.opts.MaxResponseBytes+1 { // +1: the newline
			s.line++
			return append(line, chunk[:min(len(chunk), 200)]...), errTooLong
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			s.line++
			line = line[:len(line)-1]
			return bytes.TrimSuffix(line, []byte{'\r'}), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(line) > 0 {
				s.line++
			}
			return line, io.EOF
		default:
			return line, err
		}
	}
}

// excerpt is the start of a line, Go-quoted, for an error message.
func excerpt(raw []byte) string {
	if raw == nil {
		return ""
	}
	const max = 80
	if len(raw) > max {
		return fmt.Sprintf("%q...", raw[:max])
	}
	return fmt.Sprintf("%q", raw)
}

// fail records the first protocol error and kills the subject.
func (s *Subject) fail(e *ProtocolError) error {
	if s.broken == nil {
		s.broken = e
		s.kill()
	}
	return s.broken
}

// exitStatus waits briefly for the process and describes how it ended.
func (s *Subject) exitStatus() string {
	t := time.NewTimer(closeGrace)
	defer t.Stop()
	select {
	case <-s.exited:
	case <-t.C:
		s.kill()
		return "closed its stdout"
	}
	if s.waitErr == nil {
		return "exited (status 0)"
	}
	return "exited (" + s.waitErr.Error() + ")"
}

// kill kills the process group (and, on Linux, whatever carries the
// subject's run token: procgroup.Kill) and waits for the subject to be
// reaped.
func (s *Subject) kill() {
	procgroup.Kill(s.cmd)
	<-s.exited
}

// Close ends the run: it closes the subject's stdin (the signal to exit),
// reads what is left on its stdout (anything but nothing is a protocol
// error: a line after the last response), waits for it to exit, and kills
// its process group. It returns the first protocol error of the run, if
// any.
func (s *Subject) Close() error {
	if s.closed {
		return s.brokenErr()
	}
	s.closed = true
	s.stdin.Close()
	if s.broken == nil {
		deadline := time.Now().Add(closeGrace)
		s.out.SetReadDeadline(deadline)
		raw, err := s.readLine()
		switch {
		case errors.Is(err, io.EOF) && len(raw) == 0:
		case errors.Is(err, os.ErrDeadlineExceeded):
			// It neither wrote nor closed stdout: it is killed below.
		default:
			s.broken = &ProtocolError{Line: s.line, Reason: "output after the last response (stdout carries only responses; write logs to stderr)", Excerpt: excerpt(raw)}
		}
		// The same grace for both: stdout ended, now the exit.
		t := time.NewTimer(time.Until(deadline))
		select {
		case <-s.exited:
		case <-t.C:
		}
		t.Stop()
	}
	s.kill()
	s.out.Close()
	// A grandchild that escaped the kill may hold stderr open: do not
	// wait for it forever.
	t := time.NewTimer(closeGrace)
	select {
	case <-s.stderrDone:
	case <-t.C:
	}
	t.Stop()
	return s.brokenErr()
}

func (s *Subject) brokenErr() error {
	if s.broken == nil {
		return nil
	}
	return s.broken
}
