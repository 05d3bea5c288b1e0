package journal

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/tracecheck/tracecheck/bench/tracegen"
)

// seqScan is Scan as a plain loop, line after line: the oracle for the
// pipeline.
func seqScan(data []byte, file string) ([]Record, error) {
	rd := NewReader(bytes.NewReader(data))
	c := NewRunChecker()
	var recs []Record
	for {
		l, err := rd.Next()
		if err != nil {
			if len(recs) == 0 && err.Error() == "EOF" {
				return nil, &Error{File: file, Code: EmptyJournal, Msg: "a session journal needs at least one event"}
			}
			if err.Error() == "EOF" {
				return recs, nil
			}
			return recs, asError(err, file, 0)
		}
		if l.Torn {
			return recs, tornTail(file, l.Num, len(l.Raw))
		}
		v, ev, lerr := DecodeLine(l.Raw)
		if lerr != nil {
			lerr.File, lerr.Line = file, l.Num
			return recs, lerr
		}
		if cerr := c.Check(&ev); cerr != nil {
			cerr.File, cerr.Line = file, l.Num
			return recs, cerr
		}
		recs = append(recs, Record{Line: l.Num, Offset: l.Offset, Raw: bytes.Clone(l.Raw), Value: v, Event: ev})
	}
}

// variants of a generated journal: valid, and with one problem each at
// lines that fall in different batches.
func pipelineInputs(tb testing.TB) map[string][]byte {
	good := tracegen.Bytes(tracegen.Options{Events: 1100, Seed: 3})
	lines := bytes.SplitAfter(good, []byte("\n"))
	lines = lines[:len(lines)-1]
	with := func(i int, repl string) []byte {
		out := make([][]byte, len(lines))
		copy(out, lines)
		out[i] = []byte(repl)
		return bytes.Join(out, nil)
	}
	in := map[string][]byte{
		"good":  good,
		"empty": nil,
		"torn":  good[:len(good)-10],
		"one":   lines[0],
	}
	for _, at := range []int{0, 1023, 1024, 1099} {
		in[fmt.Sprint("badjson-", at)] = with(at, "{\"trace_version\":,}\n")
		in[fmt.Sprint("schema-", at)] = with(at, string(bytes.Replace(lines[at], []byte(`"kind":"`), []byte(`"kind":"x`), 1)))
		in[fmt.Sprint("blank-", at)] = with(at, "\n")
		in[fmt.Sprint("spaced-", at)] = with(at, string(bytes.Replace(lines[at], []byte(`,"`), []byte(`, "`), 3)))
		in[fmt.Sprint("dup-", at)] = with(at, string(bytes.Replace(lines[at], []byte(fmt.Sprintf(`"evt-%03d"`, at)), []byte(`"evt-000"`), 1)))
		in[fmt.Sprint("gap-", at)] = with(at, string(bytes.Replace(lines[at], []byte(fmt.Sprintf(`"sequence":%d,`, at)), []byte(`"sequence":99999,`), 1)))
		in[fmt.Sprint("run-", at)] = with(at, string(bytes.Replace(lines[at], []byte(`"run_id":"run-bench-golden"`), []byte(`"run_id":"other"`), 1)))
	}
	return in
}

func sameErr(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Error() == b.Error()
}

func TestScanPipelineMatchesSequential(t *testing.T) {
	for name, data := range pipelineInputs(t) {
		want, werr := seqScan(data, name)
		var got []Record
		gerr := Scan(bytes.NewReader(data), name, func(r *Record) error {
			c := *r
			c.Raw = bytes.Clone(r.Raw)
			got = append(got, c)
			return nil
		})
		if !sameErr(gerr, werr) {
			t.Fatalf("%s: Scan error %v, want %v", name, gerr, werr)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d records, want %d", name, len(got), len(want))
		}
		for i := range got {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("%s: record %d differs", name, i)
			}
		}
	}
}

func TestStreamMatchesSequential(t *testing.T) {
	payloads := func(typ string, _ []byte) bool { return typ == "tool.result" || typ == "user.message" }
	for name, data := range pipelineInputs(t) {
		want, werr := seqScan(data, name)
		for _, norm := range []bool{false, true} {
			i := 0
			gerr := Stream(bytes.NewReader(data), name, StreamOptions{Normalized: norm, Payloads: payloads}, func(e *Entry) error {
				w := want[i]
				v := w.Value
				if norm {
					v = Normalize(v)
				}
				if !bytes.Equal(e.Canonical, v.AppendCanonical(nil)) {
					t.Fatalf("%s line %d: canonical differs", name, e.Line)
				}
				ev := *e.Event
				if !payloads(ev.Type, nil) {
					if ev.Payload.IsValid() {
						t.Fatalf("%s line %d: payload decoded for %s", name, e.Line, ev.Type)
					}
					ev.Payload = w.Event.Payload
				}
				if !reflect.DeepEqual(ev, w.Event) || e.Line != w.Line || e.Offset != w.Offset || !bytes.Equal(e.Raw, w.Raw) ||
					e.End != w.Offset+int64(len(w.Raw))+1 {
					t.Fatalf("%s line %d: entry differs:\n got %+v\nwant %+v", name, e.Line, ev, w.Event)
				}
				i++
				return nil
			})
			if !sameErr(gerr, werr) || i != len(want) {
				t.Fatalf("%s: Stream error %v after %d events, want %v after %d", name, gerr, i, werr, len(want))
			}
		}
	}
}

// seqValidate is Validate as a plain loop.
func seqValidate(data []byte, file string) []*Error {
	var errs []*Error
	rd := NewReader(bytes.NewReader(data))
	groups := map[[2]string]*RunChecker{}
	n, undecoded := 0, 0
	for {
		if len(errs) >= MaxErrors {
			errs = append(errs, &Error{File: file, Line: n + 1, Code: TooManyErrors,
				Msg: fmt.Sprintf("stopped after %d problems; fix these and run again", MaxErrors)})
			break
		}
		l, err := rd.Next()
		if err != nil {
			if err.Error() != "EOF" {
				errs = append(errs, asError(err, file, 0))
			}
			break
		}
		n++
		if l.Torn {
			errs = append(errs, tornTail(file, l.Num, len(l.Raw)))
			break
		}
		_, ev, lerr := DecodeLine(l.Raw)
		if lerr != nil {
			lerr.File, lerr.Line = file, l.Num
			errs = append(errs, lerr)
			undecoded++
			continue
		}
		key := [2]string{ev.SessionID, ev.Provenance.RunID}
		c := groups[key]
		if c == nil {
			c = newGroupChecker()
			groups[key] = c
		}
		want := c.Next()
		if cerr := c.Check(&ev); cerr != nil && !(undecoded > 0 && isCascade(cerr.Code, ev.Sequence, want, undecoded)) {
			cerr.File, cerr.Line = file, l.Num
			errs = append(errs, cerr)
		}
	}
	if n == 0 && len(errs) == 0 {
		errs = append(errs, &Error{File: file, Code: EmptyJournal, Msg: "file holds no event"})
	}
	return errs
}

func TestValidatePipelineMatchesSequential(t *testing.T) {
	for name, data := range pipelineInputs(t) {
		got, want := Validate(bytes.NewReader(data), name), seqValidate(data, name)
		if len(got) != len(want) {
			t.Fatalf("%s: %d errors %v, want %d %v", name, len(got), got, len(want), want)
		}
		for i := range got {
			if got[i].Error() != want[i].Error() {
				t.Fatalf("%s: error %d: %v, want %v", name, i, got[i], want[i])
			}
		}
	}
}

func TestStreamStopsOnCallbackError(t *testing.T) {
	data := tracegen.Bytes(tracegen.Options{Events: 5000, Seed: 1})
	stop := errors.New("stop")
	n := 0
	err := Stream(bytes.NewReader(data), "f", StreamOptions{}, func(e *Entry) error {
		n++
		if n == 1234 {
			return stop
		}
		return nil
	})
	if err != stop || n != 1234 {
		t.Fatalf("got %v after %d events", err, n)
	}
}

// TestStreamResume checks a tail against the checker state of its prefix.
func TestStreamResume(t *testing.T) {
	data := tracegen.Bytes(tracegen.Options{Events: 2000, Seed: 5})
	var cut Entry
	c := NewRunChecker()
	err := Stream(bytes.NewReader(data), "f", StreamOptions{}, func(e *Entry) error {
		if e.Line == 1200 {
			cut = Entry{Line: e.Line, End: e.End}
			return errors.New("cut")
		}
		c.Check(e.Event)
		return nil
	})
	if err == nil || cut.Line == 0 {
		t.Fatal("no cut")
	}
	// Feed the checker the 1200th event too, then resume after it.
	lines := bytes.SplitAfter(data, []byte("\n"))
	_, ev, _ := DecodeLine(bytes.TrimSuffix(lines[1199], []byte("\n")))
	if cerr := c.Check(&ev); cerr != nil {
		t.Fatal(cerr)
	}
	n := 0
	err = Stream(bytes.NewReader(data[cut.End:]), "f", StreamOptions{Resume: &Resume{Checker: c, Line: cut.Line, Offset: cut.End}}, func(e *Entry) error {
		if n == 0 && (e.Line != 1201 || e.Offset != cut.End || e.Event.Sequence != 1200) {
			t.Fatalf("first tail entry: line %d offset %d seq %d", e.Line, e.Offset, e.Event.Sequence)
		}
		n++
		return nil
	})
	if err != nil || n != 800 {
		t.Fatalf("resume: %v after %d", err, n)
	}
	// A tail that repeats an id of the prefix is caught.
	st, _ := c.MarshalBinary()
	var c2 RunChecker
	c2.UnmarshalBinary(st)
	dup := bytes.Replace(lines[5], []byte(`"sequence":5,`), []byte(`"sequence":2000,`), 1)
	err = Stream(bytes.NewReader(dup), "f", StreamOptions{Resume: &Resume{Checker: &c2, Line: 2000, Offset: int64(len(data))}}, func(e *Entry) error { return nil })
	if !errors.Is(err, &Error{Code: DuplicateEventID, Line: 2001}) {
		t.Fatalf("duplicate in tail: %v", err)
	}
}
