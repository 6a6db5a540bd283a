package main

import (
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	refmcp "github.com/wirecheck/wirecheck/internal/refserver/mcp"
)

// The sonde-hub profile is fuzzed as MCP over Streamable HTTP, the token
// on every request: a fault of its reference server is found, saved and
// replayed like any other.
var _ = Describe("wirecheck fuzz --protocol sonde-hub", func() {
	It("fuzzes the hub over http with the token, finds a planted fault and replays it", func() {
		dir := GinkgoT().TempDir()
		server := []string{"--", bin(), "serve", "sonde-hub", "--http", "127.0.0.1:{port}"}
		auth := []string{"--transport", "http", "--header", "Authorization: Bearer " + refmcp.DemoToken()}
		args := append([]string{"fuzz", "--protocol", "sonde-hub", "--runs", "10", "--seed", "3", "--timeout", "5s",
			"--startup-timeout", "60s", "--shrink-time", "2s", "--save", dir}, auth...)
		code, out, errs := cli("", append(append(args, server...), "--fault", "json-as-text")...)
		Expect(code).To(Equal(1), out+errs)
		Expect(out).To(ContainSubstring("revision 2025-03-26"), "the profile's own default revision")
		files, _ := filepath.Glob(filepath.Join(dir, "mcp-http-ct-1-*.yaml"))
		Expect(files).NotTo(BeEmpty(), out)

		replay := append(append([]string{"replay", files[0], "--protocol", "sonde-hub", "--startup-timeout", "60s"}, auth...), server...)
		code, out, _ = cli("", append(replay, "--fault", "json-as-text")...)
		Expect(code).To(Equal(1), out)
		Expect(out).To(MatchRegexp(`FAIL\s+MCP-HTTP-CT-1\s`))
		code, out, _ = cli("", replay...)
		Expect(code).To(Equal(0), out)
	})
})
