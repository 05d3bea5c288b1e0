//go:build !linux

package term

import (
	"errors"
	"os"
)

func isTerminal(*os.File) bool { return false }

func keyMode(*os.File, bool) (func() error, error) {
	return nil, errors.New("key mode is only implemented on Linux")
}

func openPTY() (*os.File, *os.File, error) {
	return nil, nil, errors.New("pseudo-terminals are only implemented on Linux")
}
