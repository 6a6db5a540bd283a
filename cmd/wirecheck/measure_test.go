package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// measureEnv switches the test binary into the measuring helper.
const measureEnv = "WIRECHECK_TEST_MEASURE"

// measureMark precedes the peak memory the helper prints last.
const measureMark = "\nmeasured peak KiB: "

// TestMain lets the test binary serve as a small measuring helper. Linux
// keeps a process's peak resident memory across exec, and Go starts a
// child sharing its parent's memory until the exec, so a wirecheck started
// straight from this (large) test process reports this process's peak,
// not its own. The helper is freshly started, small, runs the command and
// prints the command's ru_maxrss in KiB: wirecheck's own peak, or the
// helper's few MB if that were larger, never the test process's.
//
// With hostileEnv set it is instead the hostile HTTP server of that name
// (hostileServers), listening on its last argument: a server wirecheck
// launches, so the test can see it ended.
func TestMain(m *testing.M) {
	if name := os.Getenv(hostileEnv); name != "" {
		serveHostile(name, os.Args[len(os.Args)-1])
		return
	}
	if os.Getenv(measureEnv) == "" {
		os.Exit(m.Run())
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = os.Environ()
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		fmt.Fprintln(os.Stderr, "measure:", err)
		os.Exit(125)
	}
	fmt.Printf("%s%d\n", measureMark, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
	os.Exit(code)
}
