package store

import "os"

// SetWriteFile replaces the write(2) of a batch for a test, returning a
// function that restores it.
func SetWriteFile(fn func(f *os.File, b []byte) (int, error)) (restore func()) {
	old := writeFile
	writeFile = fn
	return func() { writeFile = old }
}

// SetWriteSideFile replaces the write(2) of a torn-tail side file for a
// test, returning a function that restores it.
func SetWriteSideFile(fn func(f *os.File, b []byte) (int, error)) (restore func()) {
	old := writeSideFile
	writeSideFile = fn
	return func() { writeSideFile = old }
}

// CheckpointTailRatio is Close's rule for rewriting a checkpoint.
const CheckpointTailRatio = checkpointTailRatio

// SetCheckpointLimit lowers the checkpoint size limit for a test,
// returning a function that restores it.
func SetCheckpointLimit(n int64) (restore func()) {
	old := checkpointLimit
	checkpointLimit = n
	return func() { checkpointLimit = old }
}

// FrozenIDBytes is the size of the checkpoint's event-ID fingerprints the
// writer's index still holds: 0 once it has read the older IDs back from
// the file (or when it was never decoded).
func (w *Writer) FrozenIDBytes() int64 {
	if w.st.ids.set == nil {
		return 0
	}
	return w.st.ids.set.Stats().FrozenBytes
}

// IDWordsInPlace reports whether the writer's index uses the words of the
// checkpoint's encoding where they were read (aligned), without a copy.
func (w *Writer) IDWordsInPlace() bool {
	return w.st.ids.set != nil && w.st.ids.set.Stats().FrozenInPlace
}
