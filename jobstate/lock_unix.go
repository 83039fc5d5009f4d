//go:build unix

package jobstate

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an advisory lock on f without waiting: exclusive for a
// crawl, shared for a reader. The kernel drops it when the process dies,
// however it dies, so a crash never leaves a state locked.
func lockFile(f *os.File, exclusive bool) (held bool, err error) {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err = syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}
