package reducer

// SetProjectionLimit lowers the size of the largest history a checkpoint
// keeps, for a test; it returns a function that restores it.
func SetProjectionLimit(n int) (restore func()) {
	old := projectionLimit
	projectionLimit = n
	return func() { projectionLimit = old }
}

// SetRebuildProbe has f called after every event a resume or checkpoint
// rebuild reads, for a test; it returns a function that removes it.
func SetRebuildProbe(f func()) (restore func()) {
	rebuildProbe = f
	return func() { rebuildProbe = nil }
}
