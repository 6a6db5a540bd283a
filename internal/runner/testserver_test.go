package runner_test

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/refserver"
	"github.com/wirecheck/wirecheck/internal/refserver/sondeserve"
	"github.com/wirecheck/wirecheck/internal/refserver/toolhost"
)

// The test binary doubles as a server under test: run with serverEnv set,
// it serves a reference protocol with a misbehaviour the reference servers
// do not plant (their faults trip rules; these test the runner).
const (
	serverEnv = "WIRECHECK_RUNNER_TEST_SERVER" // sonde-serve or tool-host
	// slowEnv: a start-up delay before the server reads or writes anything,
	// as an interpreter that takes long to start on a loaded machine.
	slowEnv = "WIRECHECK_RUNNER_TEST_SLOW"
)

// doomed marks a request after which the server is broken: it answers it,
// then exits 9 when the next line arrives (as a backend whose kill tore
// down a pending callback and crashes on its next turn of the event loop).
const doomed = "wc-doomed"

// deaf marks a request after which the server reads on but answers
// nothing more: alive, and hung.
const deaf = "wc-deaf"

// babble marks a request the server does not answer; it writes a log
// object on stdout every 50ms instead, alive and busy.
const babble = "wc-babble"

// serveTest runs the test server; it returns the exit code.
func serveTest(which string) int {
	if d, err := time.ParseDuration(os.Getenv(slowEnv)); err == nil {
		time.Sleep(d)
	}
	pr, pw := io.Pipe()
	go func() {
		r := bufio.NewReader(os.Stdin)
		broken, hung := false, false
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 && !hung {
				if broken {
					os.Exit(9)
				}
				broken = bytes.Contains(line, []byte(doomed))
				hung = bytes.Contains(line, []byte(deaf))
				if bytes.Contains(line, []byte(babble)) {
					hung = true
					go func() {
						for {
							time.Sleep(50 * time.Millisecond)
							os.Stdout.Write([]byte(`{"log":"busy"}` + "\n"))
						}
					}()
					continue
				}
				if _, werr := pw.Write(line); werr != nil {
					return
				}
			}
			if err != nil {
				pw.Close()
				return
			}
		}
	}()
	switch which {
	case "tool-host":
		return toolhost.Serve(refserver.Options{In: pr, Out: os.Stdout, Log: os.Stderr})
	default:
		return (&sondeserve.Server{Tools: sondeserve.Builtin()}).Serve(pr, os.Stdout, os.Stderr)
	}
}

// testServer is the command line and environment of the test server.
func testServer(which string, slow time.Duration) (argv, env []string) {
	env = []string{serverEnv + "=" + which}
	if slow > 0 {
		env = append(env, slowEnv+"="+slow.String())
	}
	return []string{os.Args[0]}, env
}

// spinEnv makes the test binary a busy loop for the duration it names:
// load on one core for the load test, bounded even if nobody stops it.
const spinEnv = "WIRECHECK_RUNNER_TEST_SPIN"

func spin(d time.Duration) int {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		for range 1 << 16 {
			spun++
		}
	}
	return 0
}

// spun is what the busy loop counts, kept so the loop is not optimised away.
var spun int

func isTestServer() (string, bool) {
	w := strings.TrimSpace(os.Getenv(serverEnv))
	return w, w != ""
}
