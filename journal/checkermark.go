package journal

// Taking back events a RunChecker accepted, for a caller that offers an
// event (or a group of them) and may refuse it afterwards, such as a
// session store that validates a whole group before writing any of it.

// Next returns the sequence the next event of the run must carry.
func (c *RunChecker) Next() int64 { return c.next }

// HasEventID reports whether the run holds an event with this ID: one it
// accepted, or one it rejected after recording it (a sequence gap or a
// parent that is not earlier records the event's ID, so that the events
// after it are judged against it).
func (c *RunChecker) HasEventID(id string) bool { return c.ids.has(id) }

// CheckerMark is a RunChecker's state at one moment (Mark), to return to
// with Rollback.
type CheckerMark struct{ c RunChecker }

// Mark returns c's state now.
func (c *RunChecker) Mark() CheckerMark { return CheckerMark{*c} }

// Rollback returns c, which m was taken from, to the state of m: the events
// c accepted since are forgotten. ids must name them (it may name other
// events c never held, which are ignored) and no event c held at m.
func (c *RunChecker) Rollback(m CheckerMark, ids ...string) {
	*c = m.c
	for _, id := range ids {
		c.ids.remove(id) // the id set is shared with m, and never forgets: remove notes the id as taken back
	}
}
