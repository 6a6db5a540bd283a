package conformance

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/transport"
)

// A client under test on stdio (Options.Role "client") launches its server
// as the command {server} names: a script that execs the running program
// as `PROGRAM connect-back SOCKET`, as it execs wirecheck's hidden command
// of that name. In a test binary the running program is the test binary,
// which has no such command, so this package relays instead (relay), from
// its init, and exits.
//
// Why init and not a call the user makes (a TestMain calling a Main of
// this package): the relay must run before the testing package reads the
// arguments. A test binary started as `PROGRAM connect-back SOCKET`
// without it would take the two words for arguments it ignores and run
// every test again, as the client's server: each TestConformance in it
// would launch the client again, which would start the test binary
// again. A TestMain the user forgot, or one that runs something first,
// turns one missing line into that recursion; an init of the package the
// test imports cannot be forgotten, and runs before any code of the
// user's. It takes nothing else: arguments of any other shape, or a
// SOCKET that is not a socket a listener made (in a wirecheck-client-
// folder), leave the program to run as it would, so a program of its own
// with a connect-back argument is not taken for it. The package doc says
// so to the user.
func init() {
	if code, relayed := relay(os.Args, os.Stdin, os.Stdout, os.Stderr); relayed {
		os.Exit(code)
	}
}

// relay is the client's server process when args are `PROGRAM
// connect-back SOCKET` and SOCKET is a stdio listener's: it relays in and
// out to the socket until either side ends and gives the exit code (3
// when the relay failed, with the reason on errw). relayed is false, and
// nothing done, for any other arguments.
func relay(args []string, in io.Reader, out, errw io.Writer) (code int, relayed bool) {
	if len(args) != 3 || args[1] != "connect-back" {
		return 0, false
	}
	sock := args[2]
	if !strings.HasPrefix(filepath.Base(filepath.Dir(sock)), "wirecheck-client-") {
		return 0, false
	}
	if fi, err := os.Stat(sock); err != nil || fi.Mode()&os.ModeSocket == 0 {
		return 0, false
	}
	if err := transport.ConnectBack(sock, in, out, 2*time.Second); err != nil {
		_, _ = io.WriteString(errw, "wirecheck connect-back: "+err.Error()+"\n")
		return 3, true
	}
	return 0, true
}
