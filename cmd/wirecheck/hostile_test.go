package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// ready is the sonde-serve ready line, so a hostile server gets past
// startup and misbehaves where it hurts.
const ready = `{"ok":true,"apiVersion":"1.0.0","protocolVersion":"1.0.0","command":"serve","status":"ready"}`

// maxRSS is the peak resident memory wirecheck may reach against any
// hostile server, in KiB (100 MB): the transports, the peers and the
// transcript are capped, and the README states the caps.
const maxRSS = 100_000_000 / 1024

// few is a handful of scenarios that exercise every way of waiting (a
// response, a null-id frame, pipelined calls, an exit); the whole suite
// would only repeat them.
var few = []string{"--scenario", "tools-list", "--scenario", "malformed", "--scenario", "pipeline", "--scenario", "eof"}

// hostileRun runs the real binary (so its memory can be measured) against
// a shell one-liner and returns the exit code, the output, the wall time
// and the peak resident memory in KiB. Several lanes run at once (the
// default --jobs), each with servers of its own, as in a real run. Every
// script prints its ready line at once or exits, so the startup timeout
// only bounds a loaded machine's delay in starting sh: generous.
func hostileRun(script string, extra ...string) (int, string, time.Duration, int64) {
	return measured(hostileArgs(script, extra...)...)
}

func hostileArgs(script string, extra ...string) []string {
	args := append([]string{"run", "--protocol", "sonde-serve", "--timeout", "300ms", "--startup-timeout", "10s"}, extra...)
	return append(args, "--", "sh", "-c", script)
}

// measured runs wirecheck with args through the measuring helper and
// returns what hostileRun does.
func measured(args ...string) (int, string, time.Duration, int64) {
	m := measure(args...)
	Expect(m.err).NotTo(HaveOccurred())
	return m.code, m.out, m.took, m.rss
}

// measurement is what measure found: the exit code, the output, the wall
// time and the peak resident memory in KiB, or why there is none.
type measurement struct {
	code int
	out  string
	took time.Duration
	rss  int64
	err  error
}

// measure is measured without assertions, so it can run in a goroutine
// of its own.
func measure(args ...string) measurement {
	bin, err := testbin.Wirecheck()
	if err != nil {
		return measurement{err: err}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// Through the measuring helper: a child started straight from this
	// process would inherit its peak memory (see measureMain).
	cmd := exec.CommandContext(ctx, os.Args[0], append([]string{bin}, args...)...)
	cmd.Env = append(os.Environ(), measureEnv+"=1")
	// On a hang, the helper and wirecheck go together.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err = cmd.Run()
	m := measurement{took: time.Since(start)}
	if ctx.Err() != nil {
		m.err = fmt.Errorf("wirecheck hung: %v", args)
		return m
	}
	if ee, ok := err.(*exec.ExitError); ok {
		m.code = ee.ExitCode()
	} else if err != nil {
		m.err = err
		return m
	}
	i := strings.LastIndex(out.String(), measureMark)
	if i >= 0 {
		fmt.Sscan(out.String()[i+len(measureMark):], &m.rss)
	}
	if m.rss <= 0 {
		m.err = fmt.Errorf("the measuring helper reported no peak memory:\n%s", out.String())
		return m
	}
	m.out = out.String()[:i]
	return m
}

// leftovers lists processes whose command line carries the marker.
func leftovers(marker string) string {
	out, _ := exec.Command("pgrep", "-af", marker).Output()
	var keep []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l != "" && !strings.Contains(l, "pgrep") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

var _ = Describe("a hostile server never beats the harness", func() {
	type tc struct {
		script   string
		code     int
		within   time.Duration
		evidence string
		// suite runs the whole suite, every lane against its own flooding
		// servers for longer: what a flood costs grows with both, and a
		// few scenarios would end before the caps are reached.
		suite bool
		// flags are more flags of the run.
		flags []string
		// frame is what one frame being read may cost on top of maxRSS
		// (a line up to --max-frame is held while it is read).
		frame int64
	}
	type entry struct {
		name string
		tc
	}
	// A flood (the heavy ones) comes between two servers that only keep
	// quiet: they run side by side (see ahead).
	entries := []entry{
		{"never answers", tc{"READY; SLEEP", 1, 15 * time.Second, "no response to request", false, nil, 0}},
		{"floods stdout without end", tc{"READY; SLEEP & yes '{\"id\":\"flood\",\"ok\":true}'", 1, 40 * time.Second, "SONDE-ONE-RESPONSE-1", true, nil, 0}},
		{"writes binary garbage", tc{"READY; head -c 200000 /dev/urandom; SLEEP", 1, 15 * time.Second, "SONDE-FRAMING-1", false, nil, 0}},
		// Every lane's server writes one, each over a --max-frame of 4 MiB:
		// the rest of each is skipped, never held.
		{"writes a line of 300 MB", tc{"READY; head -c 300000000 /dev/zero | tr '\\0' a; echo; SLEEP", 1, 40 * time.Second, "--max-frame", true, []string{"--max-frame", "4MiB"}, 0}},
		{"exits at once", tc{"exit 0", 3, 10 * time.Second, "never printed its ready line", false, nil, 0}},
		{"floods stdout with random bytes", tc{"READY; SLEEP & cat /dev/urandom", 1, 40 * time.Second, "SONDE-FRAMING-1", true, nil, 0}},
		{"dies mid-line", tc{"printf '{\"ok\":tr'; kill -9 $$", 3, 10 * time.Second, "output ended in the middle of a line", false, nil, 0}},
		{"floods stdout with lines over the cap", tc{"head -c 5000000 /dev/zero | tr '\\0' a > DIR/l; echo >> DIR/l; READY; SLEEP & while :; do cat DIR/l; done", 1, 15 * time.Second, "--max-frame", false, []string{"--max-frame", "4MiB"}, 0}},
		// At the default cap one such line costs the cap while it is
		// read, one lane at a time, and about as much again: the buffer's
		// last growth copies half of it, and the collector returns the
		// pages of a line just dropped to the system lazily.
		{"writes a line of 300 MB, over the default --max-frame", tc{"READY; head -c 300000000 /dev/zero | tr '\\0' a; echo; SLEEP", 1, 40 * time.Second, "wirecheck's --max-frame; raise it", false, []string{"--jobs", "1"}, 2 * transport.DefaultMaxFrame}},
		{"floods stdout with lines of 5 MB, under the default cap", tc{"head -c 5000000 /dev/zero | tr '\\0' a > DIR/l; echo >> DIR/l; READY; SLEEP & while :; do cat DIR/l; done", 1, 15 * time.Second, "SONDE-FRAMING-1", false, nil, 0}},
		{"ignores SIGTERM and leaves a child holding stdout", tc{"trap '' TERM; READY; SLEEP & SLEEP", 1, 20 * time.Second, "no response to request", false, nil, 0}},
		{"floods stdout with valid lines of 1 MB", tc{"{ printf '{\"id\":\"flood\",\"ok\":true,\"pad\":\"'; head -c 1000000 /dev/zero | tr '\\0' a; printf '\"}\\n'; } > DIR/l; READY; SLEEP & while :; do cat DIR/l; done", 1, 15 * time.Second, "SONDE-ONE-RESPONSE-1", false, nil, 0}},
		{"floods stderr", tc{"READY; SLEEP & yes 'stderr noise' >&2", 1, 40 * time.Second, "no response to request", true, nil, 0}},
	}
	// Each case's marker is unique to it and to this process: other runs
	// of this suite on the machine must not be taken for this one's.
	marker := func(i int) string { return fmt.Sprintf("sleep 7%06d%02d", os.Getpid()%1000000, i) }
	// ahead runs the cases two at a time: each spec starts the next
	// case's run before it waits for its own. A case spends most of its
	// time waiting out answers its server never gives (a whole suite's
	// worth for the floods), so one at a time left the cores idle for
	// two minutes. Under a focus or a skip a case runs only when its own
	// spec does, lest a run outlive the specs that would read it.
	var (
		aheadMu sync.Mutex
		runs    = map[int]chan measurement{}
	)
	start := func(i int) chan measurement {
		aheadMu.Lock()
		defer aheadMu.Unlock()
		if ch, ok := runs[i]; ok || i >= len(entries) {
			return ch
		}
		c := entries[i].tc
		dir, err := os.MkdirTemp("", "wirecheck-hostile-")
		ch := make(chan measurement, 1)
		runs[i] = ch
		if err != nil {
			ch <- measurement{err: err}
			return ch
		}
		script := strings.ReplaceAll(c.script, "READY", "echo '"+ready+"'")
		script = strings.ReplaceAll(script, "SLEEP", marker(i))
		script = strings.ReplaceAll(script, "DIR", dir)
		extra := append([]string(nil), c.flags...)
		if !c.suite {
			extra = append(extra, few...)
		}
		go func() {
			defer os.RemoveAll(dir)
			ch <- measure(hostileArgs(script, extra...)...)
		}()
		return ch
	}
	Describe("wirecheck ends in time, with findings, bounded memory and no process left behind", func() {
		for i, e := range entries {
			It(e.name, func() {
				if suite, _ := GinkgoConfiguration(); len(suite.FocusStrings)+len(suite.SkipStrings) == 0 && suite.LabelFilter == "" {
					start(i + 1)
				}
				m := <-start(i)
				Expect(m.err).NotTo(HaveOccurred())
				c, code, out, took, rss := e.tc, m.code, m.out, m.took, m.rss
				GinkgoWriter.Printf("peak memory %d KiB, %s\n", rss, took)
				Expect(code).To(Equal(c.code), out)
				Expect(took).To(BeNumerically("<", c.within), "took %s", took)
				Expect(rss).To(BeNumerically("<=", maxRSS+c.frame/1024), "peak memory %d MB", rss*1024/1_000_000)
				Expect(out).To(ContainSubstring(c.evidence))
				Eventually(func() string { return leftovers(marker(i)) }, 3*time.Second, 100*time.Millisecond).Should(BeEmpty())
			})
		}
	})

	It("escapes a server's markup in the HTML report", func() {
		dir := GinkgoT().TempDir()
		script := "echo '" + ready + "'; while read l; do echo '{\"id\":null,\"ok\":\"<script>alert(1)</script>\"}'; done"
		code, out, _, _ := hostileRun(script, append(few, "--report", "html="+dir+"/r.html")...)
		Expect(code).To(Equal(1), out)
		html, err := exec.Command("cat", dir+"/r.html").Output()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(html)).NotTo(ContainSubstring("<script>alert(1)</script>"))
		Expect(string(html)).To(ContainSubstring("&lt;script&gt;"))
	})
})

var _ = Describe("an interrupted run", func() {
	It("ends the server at once, writes the report and says what was not run", func() {
		dir := GinkgoT().TempDir()
		// Unique to this process: other runs of this suite on the machine
		// must not be taken for this one's server.
		marker := fmt.Sprintf("sleep 8%06d", os.Getpid()%1000000)
		script := "echo '" + ready + "'; " + marker
		cmd := exec.Command(bin(), "run", "--protocol", "sonde-serve", "--timeout", "30s",
			"--report", "json="+dir+"/r.json", "--", "sh", "-c", script)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		Expect(cmd.Start()).To(Succeed())
		Eventually(func() string { return leftovers(marker) }, 5*time.Second, 50*time.Millisecond).ShouldNot(BeEmpty())
		time.Sleep(200 * time.Millisecond)
		start := time.Now()
		Expect(cmd.Process.Signal(syscall.SIGINT)).To(Succeed())
		err := cmd.Wait()
		Expect(time.Since(start)).To(BeNumerically("<", 5*time.Second))
		Expect(err).To(HaveOccurred())
		Expect(cmd.ProcessState.ExitCode()).To(Equal(130), out.String())
		Expect(out.String()).To(ContainSubstring("interrupted"))
		data, err := exec.Command("cat", dir+"/r.json").Output()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(ContainSubstring(`"notes"`))
		Eventually(func() string { return leftovers(marker) }, 3*time.Second, 100*time.Millisecond).Should(BeEmpty())
	})
})
