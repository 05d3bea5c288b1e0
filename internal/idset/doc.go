// Package idset is an exact set of ids (event ids, message UUIDs, tool call
// ids) that holds a few bytes per id in memory whatever the ids look like,
// and encodes in about two bytes per id.
//
// Add(id, pos) gives each new id the next ordinal (0, 1, 2, ...) and keeps
// the caller's position with it; Lookup(id) says whether id was added, with
// its ordinal and position. The answers are exact: never a false accept,
// never a false reject, for any strings, whatever their hashes. Only speed
// depends on the hash. "Seen before?" is Add's second result; "is this
// parent an earlier event of the run?" is Lookup, or Lookup and an ordinal
// floor when one set serves several runs.
//
// # Budget
//
// Issue 13 asks for peak RSS ≤ 64 MB at 10M events for validate, replay,
// fingerprint, lint and session append/resume, and a session checkpoint ≤ 2
// MB for 1M UUID events. replay --json already holds about 31 MB (the
// pipeline's batches and the view; BENCHMARKS.md), so the ids may take
// (64-31) MB / 10M ≈ 3.3 bytes an event, garbage-collector slack included:
// the design holds 2.9 (2.6 for the filter, 0.3 of fixed buffers) and keeps
// the filter outside the Go heap, so the collector's pacing does not double
// it. The checkpoint leaves 2 MB / 1M = 16 bits an event for everything the
// store keeps; the encoding takes CheckpointBits+2 = 14 bits an id (1.8 MB
// at 1M, a 1024-id window included).
//
// Positions cannot fit in that: locating each of n ids to within g events
// takes at least log2(n/g) bits an id, since their order by hash is an
// arbitrary permutation of their order in the file (20 bits at 1M for exact
// positions). So the encoding keeps membership only, and a decoded set
// learns positions again from the caller's file (Source.EachID) the first
// time a lookup needs one (a "maybe" about an older id); memory keeps
// fingerprints only, and positions go to disk.
//
// # Structure
//
//   - Counter bits. Ids of one counter style (a prefix and a decimal number
//     zero-padded to a width: evt-%03d, evt-%07d, call_%d), adopted when two
//     consecutive ids agree on it, are bits indexed by ordinal when the
//     number is the ordinal plus a fixed offset: a journal of such ids costs a
//     pointer per 4096 events. Parsing and formatting are inverse, so
//     "evt-001", "evt-0001" and "evt-1" are three different ids.
//   - Window: the last Window ids (and ids confirmed by a lookup), exactly,
//     with their ordinals and positions. Nearly every parent is here.
//   - Filter: 64 shards (top 6 hash bits), each a cuckoo filter of 16-bit
//     fingerprints, four per 8-byte bucket, two buckets per id, false positive
//     rate ≤ 8/65535, rebuilt 1.5 times bigger from the spill at 93% load.
//     Shards start at sizes spread over one growth step so that the load stays
//     near its mean (77%): 21 bits an id.
//   - Spill: a record (64-bit hash, ordinal, reference) per id, buffered per
//     shard and written as generations (temporary files, unlinked at once)
//     of 1024 hash partitions, each sorted by hash, merged four at a time. In own mode
//     (no Source) the reference points into a spill of the ids' bytes and
//     positions; in Source mode it is the caller's position.
//   - Encoding: the counter style and runs of counter ordinals, the top p =
//     log2(g)+CheckpointBits bits of the hash of each of the g other ids in
//     Elias-Fano form, the newest window entries, a CRC-32C.
//
// # Why it is exact
//
// Invariants, kept by every operation:
//
//  1. Every id added on the general path has exactly one spill record with
//     its full hash, ordinal and reference; or, in a decoded set not yet
//     upgraded, the top p bits of its hash are in the decoded fingerprints.
//  2. A shard's filter answers "maybe" for the hash of each of its records
//     (a cuckoo filter has no false negatives; a rebuild starts from all the
//     records; a fingerprint that cannot be placed goes to a stash that is
//     always searched).
//  3. Counter bit o is set if and only if the id added at ordinal o is the
//     adopted style's id numbered o+offset; bits are never cleared and the
//     style never changes once adopted.
//  4. A window entry holds an added id's bytes with its true ordinal and
//     position.
//  5. While the set is "exclusive", it knows the number of every id on the
//     general path that the style parses (ids the style numbers but that
//     came out of order, or before it was adopted; at most 1024 of them,
//     else exclusivity ends for good).
//
// A lookup answers "found" only after comparing bytes (the window's, or
// those read back through a record) or from a counter bit, which by 3 and
// the inverse parse/format names exactly one id: no false accept. An added
// id is in the bits (3); or it is on the general path, where a style's id
// is among the known numbers (5, so the shortcut that answers "absent" for
// the style's other ids does not apply to it), and its hash passes the
// filter or the decoded fingerprints (1, 2), and then every record with that
// hash is compared, its own included, after an upgrade turns decoded
// fingerprints back into records: no false reject. Hash and fingerprint collisions only add
// records to compare. The one trust assumption is the Source: ids read back
// must be the ones added (upgrade checks each against the fingerprints and
// the count, and fails when they disagree).
//
// # Worst case
//
// A lookup the window does not answer touches two cache lines of one shard,
// plus a bucket of the decoded fingerprints. A "maybe" (an absent id with
// probability ≤ 1.2e-4; a present id outside the window always) reads, in
// each generation (at most 3 per level, log4(ids/32768) levels: 4 to 6 at
// 10M ids), the 256 records of its hash-sorted partition where the hash
// says it is, then the id of each record with the same 64-bit hash: 5-8 µs
// from the page cache at 1M-10M ids. A parent far back costs that once,
// then sits in the window; a trace whose every parent is a different event
// far back pays it per event (that, instead of about 0.1-1 µs). Ids crafted
// so that their full 64-bit SipHash-1-3 values collide make each lookup read
// all the colliding records: O(n) per lookup, O(n²) in all, still exact
// (tests force this with Options.Hash). With a secret Options.Key that is infeasible;
// with the public default key a colliding pair costs about 2^32 hashes and
// a k-way collision about 2^(64(k-1)/k). A decoded set reads all older ids
// once (Source.EachID) on its first "maybe" about one of them: at most one
// pass over the prefix per process, the cost of opening without a
// checkpoint. Known (a lookup that never reads back) and Vouch (the caller
// knows an id is none of the decoded ones) keep a caller that can avoid it
// off that read.
//
// Disk: 24 bytes a record, merged about log4 times, and in own mode the
// ids' bytes (about 65 bytes an id for UUIDs, 650 MB at 10M), in temporary
// files that are unlinked when created.
//
// A Set is not safe for concurrent use and never forgets: there is no
// Remove (a caller that may refuse an event looks up before it adds).
// Details, figures and the integration plan: docs/idset.md.
package idset
