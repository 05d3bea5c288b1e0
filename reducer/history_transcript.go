package reducer

// Transcript is a model-visible history read one message at a time: what a
// resume with ResumeOptions.StreamHistory gives instead of Resumed.History,
// so that printing a history larger than memory needs the memory of one
// message. The messages a resume read from the session file are read back
// from it (a descriptor of the transcript's own, valid after the session's
// writer is closed) and come with their tool calls' arguments as text
// (ToolCall.ArgumentsJSON). Close it when done.
type Transcript struct {
	b   *HistoryBuilder
	src *resumeState // closed by Close; nil for a history held in memory
}

// Len returns the number of messages.
func (t *Transcript) Len() int { return t.b.Len() }

// Each calls fn with every message in order, until fn returns an error,
// which Each returns; so does an error reading a message back (the session
// file changed under the transcript). m and its slices are fn's to keep.
func (t *Transcript) Each(fn func(i int, m Message) error) error {
	return t.b.each(fn)
}

// Close releases the session file the transcript reads from.
func (t *Transcript) Close() error {
	t.src.close()
	return nil
}
