package trajectory

// Defines -update (goldie registers it when linked in) so that
// `go test ./... -update` also runs this package's tests.

import _ "github.com/sebdah/goldie/v2"
