//go:build race

package wire

// raceEnabled: the race detector changes what allocates, so the
// allocation bounds are not checked under it.
const raceEnabled = true
