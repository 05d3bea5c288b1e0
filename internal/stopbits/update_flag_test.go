package stopbits

// This file exists only so that `go test ./... -update` works from the
// module root. The -update flag regenerates the golden traces in golden/
// (github.com/sebdah/goldie/v2 defines it when its package is linked in);
// a test binary that does not link goldie rejects the flag with "flag
// provided but not defined: -update" and fails the whole run. This package
// has no golden files: the blank import only defines the flag here.

import _ "github.com/sebdah/goldie/v2"
