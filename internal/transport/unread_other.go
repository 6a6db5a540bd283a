//go:build unix && !linux

package transport

import "os"

// unread cannot tell here: AwaitRead waits its whole limit.
func unread(*os.File) (int, bool) { return 0, false }
