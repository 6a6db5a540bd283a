//go:build unix

package testbin

import (
	"os"
	"syscall"
)

// lock takes an exclusive lock on the file at p (made if missing) for
// this process, waiting for any other holder, and returns its release.
func lock(p string) (func(), error) {
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
