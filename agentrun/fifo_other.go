//go:build !unix

package agentrun

import "errors"

func makeFIFO(path string) error {
	return errors.New("kill during_tool needs a FIFO, which this system does not have")
}

func waitFIFO(path string, exited <-chan struct{}) bool { <-exited; return false }
