package target_test

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	// The HTTP transports (http, sse) this package's tests reach are
	// registered by the module that brings them.
	_ "github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
)

// TestMain lets the test binary stand in for a server wirecheck launches
// over HTTP: "listen ADDR" serves HTTP on ADDR (or on $LISTEN_ADDR), 404
// to everything;
// "fail MSG" writes MSG on stderr and exits 3; "idle" never listens.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "listen":
			addr := os.Getenv("LISTEN_ADDR")
			if len(os.Args) > 2 {
				addr = os.Args[2]
			}
			l, err := net.Listen("tcp", addr)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(4)
			}
			go func() { _ = http.Serve(l, http.NotFoundHandler()) }()
			time.Sleep(time.Minute)
			os.Exit(0)
		case "fail":
			fmt.Fprintln(os.Stderr, os.Args[2])
			os.Exit(3)
		case "idle":
			time.Sleep(time.Minute)
			os.Exit(0)
		}
	}
	os.Exit(m.Run())
}

func TestTarget(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "target Suite")
}
