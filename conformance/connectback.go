package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/transport"
)

// A client under test on stdio (Options.Role "client") launches its server
// as the command {server} names: a script that execs the running program
// as `PROGRAM connect-back SOCKET`, as it execs wirecheck's hidden command
// of that name. A test binary has no such command, so this package's init
// relays instead, before any test runs, and exits; any other arguments
// are left alone. The socket is one the listener made (a wirecheck-client-
// folder), so a program of its own with a connect-back argument is not
// taken for it.
func init() {
	if len(os.Args) != 3 || os.Args[1] != "connect-back" {
		return
	}
	sock := os.Args[2]
	if !strings.HasPrefix(filepath.Base(filepath.Dir(sock)), "wirecheck-client-") {
		return
	}
	if fi, err := os.Stat(sock); err != nil || fi.Mode()&os.ModeSocket == 0 {
		return
	}
	if err := transport.ConnectBack(sock, os.Stdin, os.Stdout, 2*time.Second); err != nil {
		os.Stderr.WriteString("wirecheck connect-back: " + err.Error() + "\n")
		os.Exit(3)
	}
	os.Exit(0)
}
