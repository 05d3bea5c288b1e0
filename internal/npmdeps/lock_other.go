//go:build !unix

package npmdeps

// lockDir takes no lock where there is no flock: concurrent installs of
// one folder are left to npm.
func lockDir(dir string) (func(), error) { return func() {}, nil }
