package tracediff

// runs numbers the runs of a file (session_id and provenance.run_id as
// written) in the order their first lines come, and keeps each run's next
// sequence for the golden's shape check. A trace's lines mostly follow
// their run's line before, so the last run looked up is kept beside the
// map and a line of it costs two string comparisons, not a map lookup.
type runs struct {
	m    map[[2]string]*run
	last [2]string
	lr   *run // the run of last; nil: none yet
}

// run is one run's number and next sequence.
type run struct {
	index int
	next  int64
}

// of returns the run of k, numbering it when it is new.
func (r *runs) of(k key) *run {
	g := [2]string{k.session, k.run}
	if r.lr != nil && g == r.last {
		return r.lr
	}
	u, ok := r.m[g]
	if !ok {
		if r.m == nil {
			r.m = map[[2]string]*run{}
		}
		u = &run{index: len(r.m)}
		r.m[g] = u
	}
	r.last, r.lr = g, u
	return u
}

// len is the number of runs met.
func (r *runs) len() int { return len(r.m) }
