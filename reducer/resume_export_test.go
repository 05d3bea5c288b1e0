package reducer

// SetProjectionLimit lowers the size of the largest history a checkpoint
// keeps, for a test; it returns a function that restores it.
func SetProjectionLimit(n int) (restore func()) {
	old := projectionLimit
	projectionLimit = n
	return func() { projectionLimit = old }
}
