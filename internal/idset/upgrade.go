package idset

import (
	"errors"
	"fmt"
)

// upgrade reads the decoded ids back from the Source and records them as if
// they had been added to this set: after it, the fingerprints are no longer
// needed and every lookup is settled by records.
func (s *Set) upgrade() error {
	if s.frozenN == 0 {
		return nil
	}
	if s.opt.Source == nil {
		return errors.New("idset: a decoded set needs a Source to confirm its older ids")
	}
	n := s.frozenN
	var o uint64
	mismatch := func(format string, a ...any) error {
		return fmt.Errorf("idset: the Source does not hold the ids this set was encoded from: "+format, a...)
	}
	sp := s.spill()
	err := s.opt.Source.EachID(n, func(b []byte, pos uint64) error {
		if o >= n {
			return mismatch("more than %d ids", n)
		}
		id := bytesView(b)
		h := s.hashFn(id)
		if s.hasStyle && s.bits.has(o) {
			if k, ok := s.style.parse(id); !ok || int64(o)+s.style.offset != k {
				return mismatch("id %d is not the counter id it was", o)
			}
			if s.opt.CounterPositions {
				ref := pos
				if sp.own {
					var err error
					if ref, err = sp.appendID(pos, ""); err != nil {
						return err
					}
				}
				if err := sp.add(rec{h: h, ord: o | counterFlag, ref: ref}); err != nil {
					return err
				}
			}
			o++
			return nil
		}
		if s.frozen == nil || !s.frozen.contains(h>>(64-s.frozenP)) {
			return mismatch("id %d is not among the encoded ones", o)
		}
		ref := pos
		if sp.own {
			var err error
			if ref, err = sp.appendID(pos, id); err != nil {
				return err
			}
		}
		if err := sp.add(rec{h: h, ord: o, ref: ref}); err != nil {
			return err
		}
		s.shardRecs[h>>(64-shardBits)]++
		o++
		return nil
	})
	if err != nil {
		return err
	}
	if o != n {
		return mismatch("%d ids where %d were encoded", o, n)
	}
	s.frozen, s.frozenN = nil, 0
	for si := range s.shards {
		if s.shardRecs[si] > 0 {
			if err := s.rebuild(si); err != nil {
				return err
			}
		}
	}
	return nil
}
