package browsertest

// This file exists only so that `go test ./... -update` works from the
// module root: goldie defines -update when it is linked in, and a test
// binary without it rejects the flag. This package has no golden files.

import _ "github.com/sebdah/goldie/v2"
