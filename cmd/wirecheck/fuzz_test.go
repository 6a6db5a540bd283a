package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("wirecheck fuzz and replay", func() {
	It("finds a planted fault, saves a reproducer, and replay reports the same rule", func() {
		dir := GinkgoT().TempDir()
		code, out, errs := cli("", "fuzz", "--protocol", "sonde-serve", "--runs", "60", "--seed", "42",
			"--timeout", "500ms", "--shrink-time", "5s", "--save", dir, "--report", "json="+filepath.Join(dir, "fuzz.json"),
			"--", bin(), "serve", "sonde-serve", "--fault", "exit-non-object")
		Expect(code).To(Equal(1), out+errs)
		Expect(out).To(ContainSubstring("SONDE-GEN-SURVIVE"))
		Expect(out).To(ContainSubstring("wirecheck replay " + dir))
		files, _ := filepath.Glob(filepath.Join(dir, "sonde-gen-survive-*.yaml"))
		Expect(files).NotTo(BeEmpty())
		Expect(filepath.Join(dir, "fuzz.json")).To(BeAnExistingFile())

		code, out, _ = cli("", "replay", files[0], "--", bin(), "serve", "sonde-serve", "--fault", "exit-non-object")
		Expect(code).To(Equal(1), out)
		Expect(out).To(MatchRegexp(`FAIL\s+SONDE-GEN-SURVIVE`))
		code, out, _ = cli("", "replay", files[0], "--", bin(), "serve", "sonde-serve")
		Expect(code).To(Equal(0), out)
	})

	It("exits 0 with no finding against a healthy server", func() {
		code, out, errs := cli("", "fuzz", "--protocol", "sonde-serve", "--runs", "30", "--save", GinkgoT().TempDir(),
			"--", bin(), "serve", "sonde-serve")
		Expect(code).To(Equal(0), out+errs)
		Expect(out).To(ContainSubstring("0 distinct failure(s)"))
	})

	It("rejects a broken reproducer file with its line", func() {
		f := filepath.Join(GinkgoT().TempDir(), "r.yaml")
		Expect(os.WriteFile(f, []byte("protocol: sonde-serve\nname: x\nrules: [SONDE-ID-1]\nsteps:\n  - sned: {}\n"), 0o644)).To(Succeed())
		code, _, errs := cli("", "replay", f, "--", "true")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring(f + ":5: field sned not found"))
	})

	It("ends cleanly on Ctrl-C, still writing the report and the reproducers", func() {
		dir := GinkgoT().TempDir()
		cmd := exec.Command(bin(), "fuzz", "--protocol", "sonde-serve", "--duration", "60s", "--timeout", "300ms",
			"--shrink-time", "2s", "--save", dir, "--report", "json="+filepath.Join(dir, "fuzz.json"),
			"--", bin(), "serve", "sonde-serve", "--fault", "exit-non-object")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		Expect(cmd.Start()).To(Succeed())
		time.Sleep(6 * time.Second)
		Expect(cmd.Process.Signal(syscall.SIGINT)).To(Succeed())
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		Eventually(done, 10*time.Second).Should(Receive())
		Expect(out.String()).To(ContainSubstring("interrupted"))
		Expect(filepath.Join(dir, "fuzz.json")).To(BeAnExistingFile())
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		Expect(files).NotTo(BeEmpty(), out.String())
	})
})
