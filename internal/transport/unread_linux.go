package transport

import (
	"os"
	"syscall"
	"unsafe"
)

// unread is how many bytes written to the pipe f the server has not read
// yet (FIONREAD works on either end of a Linux pipe); ok is false when
// that cannot be told.
func unread(f *os.File) (n int, ok bool) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, false
	}
	var count int32
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&count)))
	}); err != nil || errno != 0 {
		return 0, false
	}
	return int(count), true
}
