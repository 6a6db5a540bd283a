//go:build unix

package fuzz_test

import (
	"syscall"
	"time"
)

// cpuTimes is the CPU time (user and system) this process and its reaped
// children have used so far: the benchmarks charge per message what the
// client itself spent, which the load of a shared machine changes far
// less than the wall clock.
func cpuTimes() (self, children time.Duration) {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	children = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return self, children
}
