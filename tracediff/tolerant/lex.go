package tolerant

import "github.com/tracecheck/tracecheck/journal/jsonv"

// Lex finds the holes of an expected event as Check does, without checking
// that the line is JSON: the line is only cut into tokens (strings,
// brackets, separators and the runs between them), which costs a fraction
// of the strict check. ok is false when Lex does not read the line
// plainly (an escape or nothing in a key, brackets that do not pair, a
// hole whose string is not valid JSON or that does not stand between a
// ':', '[' or ',' and a ',', ']' or '}', or what Check would not compile);
// the caller then takes Check.
//
// On a line Check accepts, Lex returns what Check does. On any other line
// its holes may be anything, but they are whole JSON strings at places
// where a value stands in whatever the line's text around them is: so when
// MatchHoles then accepts a valid JSON event against them, the line is that
// event with some of its values replaced by strings, which is valid JSON,
// and Check would have compiled it to these holes. That is what lets a
// golden line matched against a validated actual line skip the strict
// check.
func (k *Compiler) Lex(holes []Hole, ptrs []byte, line []byte) (_ []Hole, _ []byte, ok bool) {
	k.line, k.holes, k.ptrs, k.ok = line, holes, ptrs, true
	ok = k.lex.run(k, line) && k.ok
	holes, ptrs = k.holes, k.ptrs
	k.line, k.holes, k.ptrs = nil, nil, nil
	return holes, ptrs, ok
}

// lexer is Lex's state: the containers open around the current token.
type lexer struct {
	stack []lexFrame
}

// lexFrame is one open container: in an object the current member's key
// (as written: Lex gives up on escaped keys), in an array the current
// element's index.
type lexFrame struct {
	obj   bool
	key   []byte
	index int
}

// Len and At make the lexer the path of the string being visited.
func (x *lexer) Len() int { return len(x.stack) }

func (x *lexer) At(i int) ([]byte, int) {
	f := &x.stack[i]
	if f.obj {
		return f.key, 0
	}
	return nil, f.index
}

// run cuts line into tokens and hands each string value that is not a
// plain literal to k.visit; false when it gives up.
func (x *lexer) run(k *Compiler, line []byte) bool {
	x.stack = x.stack[:0]
	wantKey := false // in an object, before a member's key
	var prev byte    // the last token outside strings: a bracket, separator, '"' or 'v' (a number or literal)
	for i := 0; i < len(line); {
		c := line[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		case '{', '[':
			x.stack = append(x.stack, lexFrame{obj: c == '{'})
			wantKey = c == '{'
		case '}', ']':
			n := len(x.stack)
			if n == 0 || x.stack[n-1].obj != (c == '}') {
				return false
			}
			x.stack = x.stack[:n-1]
			wantKey = false
		case ',':
			if n := len(x.stack); n > 0 {
				f := &x.stack[n-1]
				f.index++
				wantKey = f.obj
			}
		case ':':
			wantKey = false
		case '"':
			end, esc := jsonv.StringEnd(line, i+1)
			if end >= len(line) {
				return false
			}
			if wantKey {
				if esc || end == i+1 || len(x.stack) == 0 {
					return false // a key Path would decode, or an empty one
				}
				x.stack[len(x.stack)-1].key = line[i+1 : end]
			} else if !plainLiteral(line[i+1:end], esc) && !x.value(k, line, i, end+1, esc, prev) {
				return false
			}
			i, prev = end+1, '"'
			continue
		default:
			for i++; i < len(line) && !isDelim(line[i]); i++ {
			}
			prev = 'v'
			continue
		}
		prev = c
		i++
	}
	return len(x.stack) == 0
}

// value visits the string value at a:b (quotes included), whose token
// before it is prev; false when it is a hole that does not stand plainly
// where a value does, or whose string is not valid JSON.
func (x *lexer) value(k *Compiler, line []byte, a, b int, esc bool, prev byte) bool {
	n := len(k.holes)
	t := ""
	if esc {
		if k.c.Check(line[a:b]) != nil {
			return false
		}
		t, _ = jsonv.StringText(line[a:b])
	} else {
		t = view(line[a+1 : b-1])
	}
	k.visit(a+1, b-1, t, x)
	if len(k.holes) == n {
		return true // a literal: the same bytes as the actual's
	}
	if h := k.holes[n]; h.Kind == Glob && !esc && k.c.Check(line[a:b]) != nil {
		return false // its text is the golden's own: it must be a valid string
	}
	if prev != ':' && prev != '[' && prev != ',' {
		return false
	}
	j := b
	for j < len(line) && (line[j] == ' ' || line[j] == '\t' || line[j] == '\n' || line[j] == '\r') {
		j++
	}
	return j < len(line) && (line[j] == ',' || line[j] == ']' || line[j] == '}')
}

// isDelim reports whether c ends a number or literal.
func isDelim(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '{', '}', '[', ']', ',', ':', '"':
		return true
	}
	return false
}
