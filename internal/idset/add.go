package idset

import (
	"math"
	"slices"
	"strings"
)

// Adding an id: the counter path (a bit, and the style's bookkeeping) or
// the general path (a spill record, the filter, the window).

// generalNumber reports whether a style's id numbered k took the general
// path.
func (s *Set) generalNumber(k int64) bool {
	switch len(s.genNums) {
	case 0:
		return false
	case 1:
		return s.genNums[0] == k
	}
	_, found := slices.BinarySearch(s.genNums, k)
	return found
}

func (s *Set) addGeneralNumber(k int64) {
	i, found := slices.BinarySearch(s.genNums, k)
	if found {
		return
	}
	if len(s.genNums) == maxGenNums {
		s.exclusive, s.genNums = false, nil
		return
	}
	s.genNums = slices.Insert(s.genNums, i, k)
}

// add adds an id known to be absent at the next ordinal; find has just
// looked it up.
func (s *Set) add(id string, pos uint64) (Entry, error) {
	o := s.n
	p := &s.probe
	if s.isVouched(id) {
		s.hasVouched = false // added: its record answers from now on
	}
	counter, err := s.addCounter(id, p, o, pos)
	if err != nil {
		return Entry{}, err
	}
	s.n++
	e := Entry{Ord: o, Pos: pos}
	if counter {
		if !s.opt.CounterPositions {
			e.Pos = NoPos
		}
		return e, nil
	}
	return e, s.addGeneral(id, s.hashOf(id, p), o, pos, p.filterAbsent)
}

func (s *Set) hashOf(id string, p *probe) uint64 {
	if !p.hashed {
		p.h, p.hashed = s.hashFn(id), true
	}
	return p.h
}

// addCounter keeps id as the bit of ordinal o when it is the counter
// style's id for o. Until a style is adopted, each counter-like id proposes
// one, and the next id adopts it when it is the same style's next number.
func (s *Set) addCounter(id string, p *probe, o, pos uint64) (bool, error) {
	if !s.hasStyle {
		st, _, ok := styleOf(id, o)
		if ok && s.hasCand && st.prefix == s.candidate.prefix && st.offset == s.candidate.offset {
			if _, ok := s.candidate.parse(id); ok {
				s.style, s.hasStyle = s.candidate, true
				s.style.prefix = strings.Clone(s.style.prefix)
				s.style.prepare()
			}
		}
		if !s.hasStyle {
			if ok {
				// A copy: id may alias a buffer the caller reuses.
				s.candBuf = append(s.candBuf[:0], st.prefix...)
				st.prefix = bytesView(s.candBuf)
				if len(s.preCounter) < maxPreCounter {
					s.preCounter = append(s.preCounter, strings.Clone(id))
				} else {
					s.preOver = true
				}
			}
			s.candidate, s.hasCand = st, ok
			return false, nil
		}
		s.exclusive, s.genNums = !s.preOver, nil
		for _, pre := range s.preCounter {
			if k, ok := s.style.parse(pre); ok {
				s.addGeneralNumber(k)
			}
		}
		s.preCounter = nil
	}
	if !p.tried {
		p.k, p.parsed = s.style.parse(id)
	}
	if !p.parsed {
		return false, nil
	}
	if at, ok := s.style.ordinal(p.k); !ok || at != o {
		return false, nil
	}
	s.bits.set(o)
	if s.opt.CounterPositions {
		h := s.hashOf(id, p)
		ref := pos
		if s.opt.Source == nil {
			var err error
			if ref, err = s.spill().appendID(pos, ""); err != nil {
				return false, err
			}
		}
		if err := s.spill().add(rec{h: h, ord: o | counterFlag, ref: ref}); err != nil {
			return false, err
		}
		s.window().insert(h, id, o, pos)
	}
	return true, nil
}

// addGeneral records id (hash h) at ordinal o: a spill record, the
// filter, the window. absent: the filter of h's shard has just answered
// that it does not hold h (find's probe).
func (s *Set) addGeneral(id string, h, o, pos uint64, absent bool) error {
	if s.exclusive {
		if k, ok := s.style.parse(id); ok {
			s.addGeneralNumber(k)
		}
	}
	sp := s.spill()
	ref := pos
	if s.opt.Source == nil {
		var err error
		if ref, err = sp.appendID(pos, id); err != nil {
			return err
		}
	}
	if err := sp.add(rec{h: h, ord: o, ref: ref}); err != nil {
		return err
	}
	s.nGen++
	si := h >> (64 - shardBits)
	s.shardRecs[si]++
	c := s.shards[si]
	switch {
	case c == nil:
		// Shards start at sizes spread over one growth step, so that they
		// do not all grow at once: the filter's load stays near its mean.
		c = newCuckoo(uint64(float64(bucketsFor(64)) * math.Pow(growth, float64(si)/nShards)))
		s.shards[si] = c
		c.insert(h)
	case c.full():
		if err := s.rebuild(int(si)); err != nil {
			return err
		}
	case absent:
		c.insertAbsent(h)
	default:
		c.insert(h)
	}
	s.window().insert(h, id, o, pos)
	return nil
}

// rebuild replaces shard si's filter by one sized for its records, built
// from the spill (the records are the truth; the filter only a summary).
//
// A small shard grows 4 times bigger (to smallShard records), not
// growth times: a few hundred bytes more per shard spare the first
// rebuilds, each of which reads every record of the shard back.
func (s *Set) rebuild(si int) error {
	n := s.shardRecs[si]
	if n < smallShard {
		n = min(uint64(float64(4*n)/growth), smallShard)
	}
	c := newCuckoo(bucketsFor(n))
	err := s.sp.eachShard(si, func(r rec) {
		if !r.counter() {
			c.insert(r.h)
		}
	})
	if err != nil {
		c.free()
		return err
	}
	if old := s.shards[si]; old != nil {
		old.free()
	}
	s.shards[si] = c
	return nil
}
