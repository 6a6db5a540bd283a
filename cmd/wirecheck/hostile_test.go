package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// ready is the sonde-serve ready line, so a hostile server gets past
// startup and misbehaves where it hurts.
const ready = `{"ok":true,"apiVersion":"1.0.0","protocolVersion":"1.0.0","command":"serve","status":"ready"}`

// hostileRun runs the real binary (so its memory can be measured) against
// a shell one-liner and returns the exit code, the output, the wall time
// and the peak resident memory in MiB.
func hostileRun(script string, extra ...string) (int, string, time.Duration, int64) {
	// A few scenarios exercise every way of waiting (a response, a
	// null-id frame, pipelined calls, an exit); the whole suite would only
	// repeat them.
	args := append([]string{"run", "--protocol", "sonde-serve", "--timeout", "300ms", "--startup-timeout", "1s",
		"--scenario", "tools-list", "--scenario", "malformed", "--scenario", "pipeline", "--scenario", "eof"}, extra...)
	args = append(args, "--", "sh", "-c", script)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin(), args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	Expect(ctx.Err()).NotTo(HaveOccurred(), "wirecheck hung against %q", script)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		Expect(err).NotTo(HaveOccurred())
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss / 1024
	return code, out.String(), took, rss
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
	}
	DescribeTable("wirecheck ends in time, with findings, bounded memory and no process left behind",
		func(c tc) {
			marker := fmt.Sprintf("sleep 7%05d", GinkgoRandomSeed()%100000+int64(CurrentSpecReport().LeafNodeLocation.LineNumber))
			script := strings.ReplaceAll(c.script, "READY", "echo '"+ready+"'")
			script = strings.ReplaceAll(script, "SLEEP", marker)
			code, out, took, rss := hostileRun(script)
			Expect(code).To(Equal(c.code), out)
			Expect(took).To(BeNumerically("<", c.within), "took %s", took)
			Expect(rss).To(BeNumerically("<", 400), "peak memory %d MiB", rss)
			Expect(out).To(ContainSubstring(c.evidence))
			Eventually(func() string { return leftovers(marker) }, 3*time.Second, 100*time.Millisecond).Should(BeEmpty())
		},
		Entry("never answers", tc{"READY; SLEEP", 1, 15 * time.Second, "no response to request"}),
		Entry("floods stdout without end", tc{"READY; yes '{\"id\":\"flood\",\"ok\":true}'", 1, 15 * time.Second, "SONDE-ONE-RESPONSE-1"}),
		Entry("writes a line of 300 MB", tc{"READY; head -c 300000000 /dev/zero | tr '\\0' a; echo; SLEEP", 1, 15 * time.Second, "cap"}),
		Entry("writes binary garbage", tc{"READY; head -c 200000 /dev/urandom; SLEEP", 1, 15 * time.Second, "SONDE-FRAMING-1"}),
		Entry("exits at once", tc{"exit 0", 3, 10 * time.Second, "never printed its ready line"}),
		Entry("dies mid-line", tc{"printf '{\"ok\":tr'; kill -9 $$", 3, 10 * time.Second, "output ended in the middle of a line"}),
		Entry("ignores SIGTERM and leaves a child holding stdout", tc{"trap '' TERM; READY; SLEEP & SLEEP", 1, 20 * time.Second, "no response to request"}),
		Entry("floods stderr", tc{"READY; yes 'stderr noise' >&2", 1, 15 * time.Second, "no response to request"}),
	)

	It("escapes a server's markup in the HTML report", func() {
		dir := GinkgoT().TempDir()
		script := "echo '" + ready + "'; while read l; do echo '{\"id\":null,\"ok\":\"<script>alert(1)</script>\"}'; done"
		code, out, _, _ := hostileRun(script, "--report", "html="+dir+"/r.html")
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
		marker := "sleep 7999"
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
		Expect(cmd.ProcessState.ExitCode()).To(Equal(1), out.String())
		Expect(out.String()).To(ContainSubstring("interrupted"))
		data, err := exec.Command("cat", dir+"/r.json").Output()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(ContainSubstring(`"notes"`))
		Eventually(func() string { return leftovers(marker) }, 3*time.Second, 100*time.Millisecond).Should(BeEmpty())
	})
})
