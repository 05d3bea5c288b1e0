package store

// Tail receipts: what lets a writer opened from a checkpoint take the
// events appended after it without asking the checkpoint's event-ID
// fingerprints about each of them.
//
// A checkpoint keeps the older event IDs of a session as fingerprints
// (internal/idset: about two bytes an event), enough to say that an ID is
// new, except that about one new ID in 4,096 matches an older fingerprint
// and only reading every older ID back from the file settles it: about a
// second at a million events. Every event of the tail (the events after
// the checkpoint) is such a new ID each time a writer opens the session,
// so a tail of a hundred events would cost that second in one open out of
// forty. The writer that appended them checked each one against the same
// checkpoint already. After each append, and at Close when it does not
// write a checkpoint, it writes a receipt, <session file>.receipt: the
// SHA-256 trailer of the checkpoint it built on, the end of the bytes after
// it that it covers, their SHA-256, and how many tail bytes the opens since
// that checkpoint have read (what decides when Close rewrites it:
// Writer.checkpointDue). A writer that opens the session
// from the same checkpoint hashes the same bytes; when they match, the IDs
// of the events in them are vouched for (idset.Set.Vouch): new to the
// checkpoint's IDs, as the earlier writer established. Everything else
// about those events (schema, runs, sequences, parents) is checked as
// before.
//
// A receipt is a record of a check already done, never an authority: one
// that is missing, not a regular file, damaged (its own SHA-256), made on
// another checkpoint, longer than the file, or whose bytes differ, is
// ignored, and the tail is checked in full. It is written in place without
// fsync: the bytes it covers were fsynced before it was written, so a
// receipt that survives a crash covers bytes that did too, and one torn by
// the crash fails its checksum.

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"io"
	"os"

	"github.com/tracecheck/tracecheck/internal/atomicfile"
)

// ReceiptExt is appended to a session file's name to name its tail
// receipt: <name>.jsonl.receipt.
const ReceiptExt = ".receipt"

const receiptMagic = "tracecheck-tail-receipt/1\n"

// receiptLen is a receipt's size: magic, the checkpoint's trailer, the
// covered end and the tail bytes read (int64s, little-endian), the covered
// bytes' SHA-256, and the SHA-256 of all of that.
const receiptLen = len(receiptMagic) + sha256.Size + 8 + 8 + sha256.Size + sha256.Size

func receiptPath(path string) string { return path + ReceiptExt }

// receiptBase is the checkpoint a writer's receipts build on.
type receiptBase struct {
	digest   [sha256.Size]byte // the checkpoint's SHA-256 trailer
	size     int64             // the session bytes it covers
	fileSize int64             // the checkpoint file's own size
}

// receipts is a writer's side of the receipts: the checkpoint it opened
// from or last wrote, the SHA-256 of the session bytes after it, and how
// far the receipt on disk reaches.
type receipts struct {
	base *receiptBase // nil: no checkpoint to build on, no receipt
	tail hash.Hash    // SHA-256 of the session bytes [base.size, hashed)
	// hashed is the end of the bytes in tail; written, the end the
	// receipt on disk covers (base.size when there is none of this base).
	hashed, written int64
	// read is how many tail bytes the opens from base have read, this
	// writer's included; readWritten, what the receipt on disk says.
	read, readWritten int64
	f                 *os.File // the receipt file, once opened
}

// start makes base the checkpoint receipts build on, with no byte after
// it hashed yet.
func (r *receipts) start(base *receiptBase) {
	r.base, r.tail, r.hashed, r.written = base, sha256.New(), base.size, base.size // an empty tail needs no receipt
	r.read, r.readWritten = 0, 0
}

// stop ends receipts for this writer (no checkpoint to build on, or a
// receipt that could not be written).
func (r *receipts) stop() { r.base, r.tail = nil, nil }

// hashFile adds the session bytes [r.hashed, end) of src to the tail's
// digest.
func (r *receipts) hashFile(src io.ReaderAt, end int64) error {
	if r.base == nil || end <= r.hashed {
		return nil
	}
	if _, err := io.Copy(r.tail, io.NewSectionReader(src, r.hashed, end-r.hashed)); err != nil {
		return err
	}
	r.hashed = end
	return nil
}

// appended adds bytes just written at the end of the session.
func (r *receipts) appended(b []byte) {
	if r.base != nil {
		r.tail.Write(b)
		r.hashed += int64(len(b))
	}
}

// verified returns the end of the tail that the receipt of path vouches
// for: the bytes [base.size, end) of src hash as it says. It hashes them
// into r (the receipt's base must be r's). base.size when there is no
// usable receipt.
func (r *receipts) verified(path string, src io.ReaderAt, fileSize int64) int64 {
	if r.base == nil {
		return 0
	}
	end, read, sum, ok := readReceipt(receiptPath(path), r.base)
	if !ok || end > fileSize {
		return r.base.size
	}
	if err := r.hashFile(src, end); err != nil || !bytes.Equal(r.tail.Sum(nil), sum[:]) {
		// The bytes differ: start the digest again, for the scan.
		r.start(r.base)
		return r.base.size
	}
	r.written, r.read, r.readWritten = end, read, read
	return end
}

// readReceipt reads the receipt at path when it builds on base: the end it
// covers, the tail bytes read so far, and the SHA-256 of the bytes
// [base.size, end).
func readReceipt(path string, base *receiptBase) (end, read int64, sum [sha256.Size]byte, ok bool) {
	f, err := openFile(path, os.O_RDONLY, 0)
	if err != nil {
		return 0, 0, sum, false
	}
	defer f.Close()
	var b [receiptLen + 1]byte
	n, _ := io.ReadFull(f, b[:])
	if n != receiptLen {
		return 0, 0, sum, false
	}
	body, check := b[:receiptLen-sha256.Size], b[receiptLen-sha256.Size:receiptLen]
	if s := sha256.Sum256(body); !bytes.Equal(s[:], check) {
		return 0, 0, sum, false
	}
	d, ok := bytes.CutPrefix(body, []byte(receiptMagic))
	if !ok || !bytes.Equal(d[:sha256.Size], base.digest[:]) {
		return 0, 0, sum, false
	}
	d = d[sha256.Size:]
	end, read = int64(binary.LittleEndian.Uint64(d)), int64(binary.LittleEndian.Uint64(d[8:]))
	copy(sum[:], d[16:])
	if end < base.size || read < 0 {
		return 0, 0, sum, false
	}
	return end, read, sum, true
}

// write replaces the receipt of path with one covering everything hashed.
// A receipt that cannot be written ends receipts for the writer: the next
// open checks the tail in full, which is slower, never wrong.
func (r *receipts) write(path string) {
	if r.base == nil || (r.written == r.hashed && r.readWritten == r.read) {
		return
	}
	b := make([]byte, 0, receiptLen)
	b = append(b, receiptMagic...)
	b = append(b, r.base.digest[:]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(r.hashed))
	b = binary.LittleEndian.AppendUint64(b, uint64(r.read))
	b = r.tail.Sum(b)
	s := sha256.Sum256(b)
	b = append(b, s[:]...)
	if err := r.put(path, b); err != nil {
		r.stop()
		return
	}
	r.written, r.readWritten = r.hashed, r.read
}

// put writes a receipt's bytes. The writer's first receipt is a new file
// renamed over the name (so that whatever the name held, a hard link to
// the session file above all, is replaced, never written through); the
// next ones overwrite that file of the writer's own in place.
func (r *receipts) put(path string, b []byte) error {
	if r.f != nil {
		_, err := r.f.WriteAt(b, 0)
		return err
	}
	f, err := atomicfile.CreateTemp(receiptPath(path), os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), receiptPath(path)); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	r.f = f
	return nil
}

// close closes the receipt file.
func (r *receipts) close() {
	if r.f != nil {
		r.f.Close()
		r.f = nil
	}
}
