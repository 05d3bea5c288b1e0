//go:build !linux

package term

import "errors"

func isTerminal(uintptr) bool { return false }

func keyMode(uintptr) (func() error, error) {
	return nil, errors.New("key mode is only implemented on Linux")
}
