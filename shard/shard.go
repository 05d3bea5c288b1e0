// Package shard splits a suite across the jobs of a CI matrix and puts the
// parts back together, with no scheduler of its own: the CI's job matrix
// (GitHub Actions strategy.matrix, GitLab parallel:, Buildkite
// parallelism) is the distributed engine, and each job runs the same
// command with --shard K/N.
//
// Assignment (Of, Spec.Takes) is by a hash of each item's id or path, never
// by position: an item's shard depends on its id and N alone, so adding
// one item moves only that item, and every item is in exactly one shard.
// The shard of id among N is 1 + (the first 8 bytes of SHA-256(id), read
// big-endian) mod N.
//
// A shard writes its whole result as one JSON file (Result, the schema
// schema/result.schema.json, format "tracecheck-result" version 1): the
// shard spec, the digest of the inputs the run knew (Digest: the ids and
// definition files of every item, not the goldens), the plan (every item
// the run selected, with its shard and the goldens it references), the
// outcome and report of each item it took, the goldens it saw on disk, the
// run's settings and tracecheck's version. Merge puts N results together
// and refuses a set that is not one whole run: results of different
// tracecheck versions, suites (digests), commands, settings or shard
// counts, a missing shard, a shard given twice, an item in the wrong shard
// or in two. What the items' reports mean is the command's (package
// verify for verify, cmd/tracecheck for lint and conform): this package
// only carries them.
package shard

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"strconv"
	"strings"
)

// MaxTotal bounds N: more shards than any CI matrix runs is a typo.
const MaxTotal = 10000

// Spec is shard Index of Total (1 <= Index <= Total), as --shard K/N
// spells it. The zero Spec is an unsharded run.
type Spec struct {
	Index int `json:"index"`
	Total int `json:"total"`
}

// Whole is the spec of a run that is not split: shard 1 of 1.
var Whole = Spec{Index: 1, Total: 1}

// Parse reads "K/N".
func Parse(s string) (Spec, error) {
	k, n, ok := strings.Cut(s, "/")
	ki, kerr := strconv.Atoi(k)
	ni, nerr := strconv.Atoi(n)
	if !ok || kerr != nil || nerr != nil || strings.HasPrefix(k, "+") || strings.HasPrefix(n, "+") {
		return Spec{}, fmt.Errorf("must be K/N (shard K of N, two integers)")
	}
	if ni < 1 || ni > MaxTotal || ki < 1 || ki > ni {
		return Spec{}, fmt.Errorf("must be K/N with 1 <= K <= N <= %d", MaxTotal)
	}
	return Spec{Index: ki, Total: ni}, nil
}

// IsZero reports whether s is the zero Spec (no --shard).
func (s Spec) IsZero() bool { return s == Spec{} }

// String is "K/N".
func (s Spec) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Total) }

// Of returns the shard (1 to n) that id belongs to among n.
func Of(id string, n int) int {
	if n <= 1 {
		return 1
	}
	h := sha256.Sum256([]byte(id))
	return int(binary.BigEndian.Uint64(h[:8])%uint64(n)) + 1
}

// Takes reports whether id belongs to shard s; the zero Spec takes every
// id.
func (s Spec) Takes(id string) bool {
	return s.IsZero() || Of(id, s.Total) == s.Index
}

// Digest hashes the inputs of a run: each item's kind, id and the parts
// that define it (its definition file, its golden names), every field
// length-prefixed so that no two different inputs hash alike. Items must
// be added in the same order by every shard (their run order).
type Digest struct {
	buf   []byte
	items int
	h     hash.Hash
}

// NewDigest starts the digest of a run of command.
func NewDigest(command string) *Digest {
	d := &Digest{h: sha256.New()}
	d.field([]byte("tracecheck-inputs/1"))
	d.field([]byte(command))
	return d
}

func (d *Digest) field(b []byte) {
	d.buf = binary.BigEndian.AppendUint64(d.buf[:0], uint64(len(b)))
	d.h.Write(d.buf)
	d.h.Write(b)
}

// Add adds one item the run knew.
func (d *Digest) Add(kind, id string, parts ...[]byte) {
	d.items++
	d.field([]byte(kind))
	d.field([]byte(id))
	d.buf = binary.BigEndian.AppendUint64(d.buf[:0], uint64(len(parts)))
	d.h.Write(d.buf)
	for _, p := range parts {
		d.field(p)
	}
}

// Items is how many items were added.
func (d *Digest) Items() int { return d.items }

// Sum is the digest, "sha256:" and 64 hex digits.
func (d *Digest) Sum() string { return fmt.Sprintf("sha256:%x", d.h.Sum(nil)) }
