package interop_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/httpserve"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Client registration (MCP-CLIENT-REG-*) with real clients over
// Streamable HTTP, each authorizing through its SDK's OAuth client as an
// application configures it (OAUTH=1): the TypeScript SDK (2025-11-25 at
// most) and the Go SDK (2026-07-28). In the corpus (make interop).
//
// Triaged (docs/mcp-interop.md): the Go SDK given pre-registered
// credentials without their issuer ({issuer}) takes them to the
// authorization server the metadata moves to: MCP-CLIENT-REG-6 and -7,
// true of the client as configured ("MUST associate those credentials with the specific
// authorization server that issued them"). The TypeScript SDK's GET
// stream authorizes without the 401's scope (MCP-CLIENT-AUTH-7, a SHOULD,
// when its GET is refused before its POST) and steps up by refreshing
// its token, which cannot widen the scope (MCP-CLIENT-AUTH-8, a SHOULD);
// the Go SDK runs with ACCEPT_UNADVERTISED_ISS=1, its default's finding
// (MCP-CLIENT-AUTH-10) being the authorizing runs' (client_test.go).
var _ = Describe("real clients registering with wirecheck's authorization server", Label("corpus"), func() {
	var cert, key string
	BeforeEach(func() {
		skipOutsideCorpus()
		cert, key = selfSigned(GinkgoT().TempDir())
	})
	pre := []string{"MCP_CLIENT_ID=" + httpserve.WordClientID, "MCP_CLIENT_SECRET=" + httpserve.WordClientSecret}

	It("the TypeScript SDK uses its metadata document, and pre-registered credentials when given them", func() {
		argv := []string{officialNode(), interopScript("ts-sdk-client.mjs"), target.ServerURL}
		rep := runClient(argv, "2025-11-25", []string{"OAUTH=1", "CIMD_CERT=" + cert, "CIMD_KEY=" + key})
		Expect(verdicts(rep, "MCP-CLIENT-REG-")).To(And(HaveKeyWithValue("MCP-CLIENT-REG-2", verdict.Pass),
			HaveKeyWithValue("MCP-CLIENT-REG-3", verdict.Pass), HaveKeyWithValue("MCP-CLIENT-REG-4", verdict.Pass)))
		expectOnly(rep, "MCP-CLIENT-HTTP-6", "MCP-CLIENT-AUTH-7", "MCP-CLIENT-AUTH-8")
		rep = runClient(argv, "2025-11-25", append([]string{"OAUTH=1"}, pre...))
		Expect(verdicts(rep, "MCP-CLIENT-REG-")).To(HaveKeyWithValue("MCP-CLIENT-REG-5", verdict.Pass))
		expectOnly(rep, "MCP-CLIENT-HTTP-6", "MCP-CLIENT-AUTH-7", "MCP-CLIENT-AUTH-8")
	})

	It("the Go SDK registers with application_type, uses its metadata document, and registers anew when the authorization server changes", func() {
		argv := []string{goProgram("gosdk"), target.ServerURL}
		rep := runClient(argv, "2026-07-28", []string{"OAUTH=1", "ACCEPT_UNADVERTISED_ISS=1"})
		Expect(verdicts(rep, "MCP-CLIENT-REG-")).To(And(HaveKeyWithValue("MCP-CLIENT-REG-1", verdict.Pass),
			HaveKeyWithValue("MCP-CLIENT-REG-6", verdict.Pass), HaveKeyWithValue("MCP-CLIENT-REG-7", verdict.Pass)))
		// Configured without a metadata document it registers where one
		// is advertised: the SHOULD of MCP-CLIENT-REG-4, true.
		expectOnly(rep, "MCP-CLIENT-REG-4")
		rep = runClient(argv, "2026-07-28", []string{"OAUTH=1", "ACCEPT_UNADVERTISED_ISS=1", "CIMD=1"})
		Expect(verdicts(rep, "MCP-CLIENT-REG-")).To(And(HaveKeyWithValue("MCP-CLIENT-REG-2", verdict.Pass),
			HaveKeyWithValue("MCP-CLIENT-REG-3", verdict.Pass), HaveKeyWithValue("MCP-CLIENT-REG-4", verdict.Pass)))
		expectOnly(rep)
		rep = runClient(argv, "2026-07-28", append([]string{"OAUTH=1", "ACCEPT_UNADVERTISED_ISS=1"}, pre...))
		Expect(verdicts(rep, "MCP-CLIENT-REG-")).To(HaveKeyWithValue("MCP-CLIENT-REG-5", verdict.Pass))
		expectOnly(rep, "MCP-CLIENT-REG-6", "MCP-CLIENT-REG-7")
		// Bound to their issuer, the credentials are not taken to the
		// second authorization server: the SDK reports the mismatch (a
		// SHOULD of the page) rather than registering there, and neither
		// rule is judged.
		rep = runClient(argv, "2026-07-28", append([]string{"OAUTH=1", "ACCEPT_UNADVERTISED_ISS=1", "MCP_CLIENT_ISSUER=" + httpserve.WordIssuer}, pre...))
		Expect(verdicts(rep, "MCP-CLIENT-REG-")).To(And(HaveKeyWithValue("MCP-CLIENT-REG-5", verdict.Pass),
			HaveKeyWithValue("MCP-CLIENT-REG-6", verdict.Skip), HaveKeyWithValue("MCP-CLIENT-REG-7", verdict.Skip)))
		expectOnly(rep)
	})
})

// runClient runs the client argv over Streamable HTTP under rev.
func runClient(argv []string, rev string, env []string) *report.Report {
	GinkgoHelper()
	return clientReport(rev, target.Target{Transport: "http", Argv: argv, Env: env}, runner.Config{})
}

// verdicts are the rules with prefix a report judged, each its worst
// verdict (fail over pass over skip).
func verdicts(rep *report.Report, prefix string) map[string]verdict.Verdict {
	rank := map[verdict.Verdict]int{verdict.Skip: 0, verdict.Pass: 1, verdict.Fail: 2, verdict.Error: 3}
	out := map[string]verdict.Verdict{}
	for _, f := range rep.Findings {
		if v, ok := out[f.Rule]; strings.HasPrefix(f.Rule, prefix) && (!ok || rank[f.Verdict] > rank[v]) {
			out[f.Rule] = f.Verdict
		}
	}
	return out
}

// expectOnly: no rule failed or errored but those triaged.
func expectOnly(rep *report.Report, triaged ...string) {
	for _, f := range rep.Findings {
		if f.Verdict == verdict.Fail || f.Verdict == verdict.Error {
			Expect(triaged).To(ContainElement(f.Rule), "%s in %s: %s", f.Rule, f.Scenario, f.Message)
		}
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key (PEM) to dir:
// what a client serves its metadata document on loopback with.
func selfSigned(dir string) (cert, key string) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	Expect(err).NotTo(HaveOccurred())
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	Expect(err).NotTo(HaveOccurred())
	kb, err := x509.MarshalECPrivateKey(k)
	Expect(err).NotTo(HaveOccurred())
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	Expect(os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)).To(Succeed())
	Expect(os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)).To(Succeed())
	return cert, key
}
