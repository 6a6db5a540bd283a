package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Every command line wirecheck prints for a user to run again must, pasted
// into a shell, do what the printed run did: the server's folder, its
// environment and the protocol settings travel with it, secrets as
// placeholders the shell fills.
var _ = Describe("printed reproduce lines", func() {
	// server writes a script, in a folder whose name a shell would split
	// and expand, that plants fault only when the environment asks for it
	// (and holds the secret): run from elsewhere, or without the settings,
	// there is no script or no fault.
	server := func(protocol, fault string) string {
		dir := filepath.Join(GinkgoT().TempDir(), "my server $HOME 'x'")
		Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
		script := "#!/bin/sh\nif [ \"$WC_FAULT\" = on ] && [ \"$API_TOKEN\" = s3cret ]; then exec '" + bin() + "' serve " + protocol + " --fault " + fault + "; fi\nexec '" + bin() + "' serve " + protocol + "\n"
		Expect(os.WriteFile(filepath.Join(dir, "srv.sh"), []byte(script), 0o755)).To(Succeed())
		return dir
	}
	// shell runs a printed line as a user pasting it would: sh reads it,
	// `wirecheck` is on the PATH, the secret is in the environment.
	shell := func(line string) (int, string) {
		cmd := exec.Command("sh", "-c", line)
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin())+":"+os.Getenv("PATH"), "API_TOKEN=s3cret")
		out, _ := cmd.CombinedOutput()
		return cmd.ProcessState.ExitCode(), string(out)
	}

	It("fuzz prints a replay line (and saves it in the reproducer) that reproduces the failure as printed", func() {
		dir, save := server("mcp", "crash-on-garbage"), GinkgoT().TempDir()
		code, out, errs := cli("", "fuzz", "--protocol", "mcp", "--runs", "25", "--seed", "3", "--timeout", "1s",
			"--shrink-time", "1s", "--save", save, "--rules", "MCP-STDIO-3", "--cwd", dir, "--env", "WC_FAULT=on",
			"--env", "API_TOKEN=s3cret", "--param", "mcp-version=2024-11-05", "--", "./srv.sh")
		Expect(code).To(Equal(1), out+errs)
		m := regexp.MustCompile(`(?m)^    saved (.*)\n    replay: (.*)$`).FindStringSubmatch(out)
		Expect(m).NotTo(BeNil(), out)
		file, line := m[1], m[2]
		Expect(line).NotTo(ContainSubstring("s3cret"), "a secret is a placeholder")
		Expect(line).To(ContainSubstring(`--env API_TOKEN="$API_TOKEN"`))
		Expect(line).To(ContainSubstring("--revision 2024-11-05"), "the revision, however named, as --revision")

		code, rout := shell(line)
		Expect(code).To(Equal(1), line+"\n"+rout)
		Expect(rout).To(MatchRegexp(`FAIL\s+MCP-STDIO-3\s`))

		data, err := os.ReadFile(file)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(ContainSubstring("# Replay: " + line + "\n"))
		Expect(string(data)).NotTo(ContainSubstring("s3cret"))
	})

	It("run prints Reproduce lines that reproduce the failure as printed", func() {
		dir := server("sonde-serve", "runtime-null-id")
		code, out, errs := cli("", "run", "--protocol", "sonde-serve", "--timeout", "2s", "--level", "should",
			"--cwd", dir, "--env", "WC_FAULT=on", "--env", "API_TOKEN=s3cret", "--", "./srv.sh")
		Expect(code).To(Equal(1), out+errs)
		m := regexp.MustCompile(`(?m)^  Reproduce: (.*)$`).FindStringSubmatch(out)
		Expect(m).NotTo(BeNil(), out)
		Expect(m[1]).NotTo(ContainSubstring("s3cret"))
		Expect(m[1]).To(ContainSubstring("--level should"))
		code, rout := shell(m[1])
		Expect(code).To(Equal(1), m[1]+"\n"+rout)
		Expect(rout).To(MatchRegexp(`FAIL\s+SONDE-RUNTIME-1\s`))
	})
})

// Issue 26: fuzz drops the answers no step took before a line whose
// answer it judges; a reproducer says so with a drain step, and replay
// drops them too, so it judges the answer fuzz judged, not a late one.
var _ = Describe("wirecheck replay of a drain step", func() {
	It("drops the answers left over before it: the silence on the next line is judged, not an earlier answer", func() {
		f := filepath.Join(GinkgoT().TempDir(), "r.yaml")
		Expect(os.WriteFile(f, []byte(`protocol: sonde-serve
name: drained
rules: [SONDE-MALFORMED-1]
steps:
  # Answered with id null and ok false, and left in the inbox.
  - send_line: '[1]'
  - sleep: 300ms
  - drain: true
  - send_line: '{"id": "m-1", "method": "tools/list"'
  - expect_frame: true
    rule: SONDE-MALFORMED-1
    within: 500ms
    match: {/id: null, /ok: false}
`), 0o644)).To(Succeed())
		code, out, errs := cli("", "replay", f, "--", bin(), "serve", "sonde-serve", "--fault", "malformed-silent")
		Expect(code).To(Equal(1), out+errs)
		Expect(out).To(ContainSubstring("FAIL     SONDE-MALFORMED-1"))
	})
})
