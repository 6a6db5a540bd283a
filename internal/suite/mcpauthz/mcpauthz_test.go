package mcpauthz_test

import (
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/conformance"
	"github.com/wirecheck/wirecheck/internal/refserver/mcpauthz"
	suite "github.com/wirecheck/wirecheck/internal/suite/mcpauthz"
)

func TestMcpauthz(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "mcp-authorization scenarios")
}

// freePort is a loopback port nothing listens on (the callback's, which a
// client registered beforehand names).
func freePort() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// verdicts runs the suite against h in this process: rule → verdict.
func verdicts(h http.Handler, params ...string) map[string]string {
	fs, err := conformance.Check(conformance.Options{Protocol: "mcp-authorization", Handler: h, Params: params, Timeout: 2 * time.Second})
	Expect(err).NotTo(HaveOccurred())
	out := map[string]string{}
	for _, f := range fs {
		out[f.Rule] = f.Verdict + " " + f.Message
	}
	return out
}

var _ = Describe("the mcp-authorization scenarios", func() {
	It("run the grant with a client registered beforehand (--param client-id, client-secret, callback-port) on a server without registration", func() {
		port := freePort()
		redirect := "http://127.0.0.1:" + strconv.Itoa(port) + "/callback"
		as, err := mcpauthz.New(mcpauthz.Options{Variants: []string{"no-registration", "auth-basic"},
			Clients: []mcpauthz.Client{{ID: "pre", Secret: "s3cret", AuthMethod: "client_secret_basic", RedirectURIs: []string{redirect}}}})
		Expect(err).NotTo(HaveOccurred())
		v := verdicts(as, suite.ParamClientID+"=pre", suite.ParamClientSecret+"=s3cret", suite.ParamCallbackPort+"="+strconv.Itoa(port))
		Expect(v["MCP-AUTHZ-DCR-1"]).To(HavePrefix("skip"))
		for _, r := range []string{"MCP-AUTHZ-CODE-1", "MCP-AUTHZ-REDIR-1", "MCP-AUTHZ-ISS-1", "MCP-AUTHZ-TOKEN-1", "MCP-AUTHZ-TOKEN-2", "MCP-AUTHZ-RES-1", "MCP-AUTHZ-PKCE-2", "MCP-AUTHZ-ERR-1", "MCP-AUTHZ-ERR-2"} {
			Expect(v[r]).To(HavePrefix("pass"), r)
		}
	})

	It("keep the tokens and secrets the server issued out of the report", func() {
		as, err := mcpauthz.New(mcpauthz.Options{Faults: []string{"token-cacheable"}, Variants: []string{"auth-post"}})
		Expect(err).NotTo(HaveOccurred())
		out := filepath.Join(GinkgoT().TempDir(), "r.json")
		fs, err := conformance.Check(conformance.Options{Protocol: "mcp-authorization", Handler: as, Reports: []string{"json=" + out}, Timeout: 2 * time.Second})
		Expect(err).NotTo(HaveOccurred())
		Expect(fs).NotTo(BeEmpty())
		b, err := os.ReadFile(out)
		Expect(err).NotTo(HaveOccurred())
		rep := string(b)
		Expect(rep).To(ContainSubstring(`access_token\":\"[REDACTED]`), "the failing token response is in the transcript, masked")
		Expect(rep).To(ContainSubstring(`client_secret\":\"[REDACTED]`))
		Expect(rep).NotTo(ContainSubstring("eyJ"), "no JWT")
	})

	It("skip the grant, naming --param resource, when the server serves no such resource (invalid_target)", func() {
		as, err := mcpauthz.New(mcpauthz.Options{})
		Expect(err).NotTo(HaveOccurred())
		refuse := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if q := r.URL.Query(); strings.HasSuffix(r.URL.Path, "/authorize") && q.Get("redirect_uri") != "" && !strings.HasSuffix(q.Get("redirect_uri"), "-unregistered") {
				http.Redirect(w, r, q.Get("redirect_uri")+"?error=invalid_target&state="+q.Get("state"), http.StatusFound)
				return
			}
			as.ServeHTTP(w, r)
		})
		v := verdicts(refuse)
		Expect(v["MCP-AUTHZ-CODE-1"]).To(And(HavePrefix("skip"), ContainSubstring("--param resource=")))
		Expect(v["MCP-AUTHZ-TOKEN-1"]).To(HavePrefix("skip"))
	})

	// RFC 7591 §3 lets a server ask an initial access token before it
	// registers anyone: a refused registration is no breach of DCR-1's
	// client_id or DCR-2's 201, and the grant is skipped, saying how to go
	// on.
	It("skip registration and the grant, naming --param client-id, when the server refuses to register wirecheck", func() {
		as, err := mcpauthz.New(mcpauthz.Options{})
		Expect(err).NotTo(HaveOccurred())
		refuse := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/register") {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				_, _ = io.WriteString(w, `{"error":"invalid_token","error_description":"an initial access token is required"}`)
				return
			}
			as.ServeHTTP(w, r)
		})
		v := verdicts(refuse)
		for _, r := range []string{"MCP-AUTHZ-DCR-1", "MCP-AUTHZ-DCR-2"} {
			Expect(v[r]).To(And(HavePrefix("skip"), ContainSubstring("--param client-id")), r)
		}
		Expect(v["MCP-AUTHZ-CODE-1"]).To(HavePrefix("skip"))
	})

	It("end, bounded, against a server whose authorize redirects forever and whose token endpoint never answers", func() {
		as, err := mcpauthz.New(mcpauthz.Options{})
		Expect(err).NotTo(HaveOccurred())
		hostile := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case strings.HasSuffix(r.URL.Path, "/authorize"):
				http.Redirect(w, r, r.URL.String(), http.StatusFound)
			case strings.HasSuffix(r.URL.Path, "/token"):
				// Read to the end, so the server notices the client
				// leave (and the run's server can close); then hold on.
				_, _ = io.Copy(io.Discard, r.Body)
				select {
				case <-r.Context().Done():
				case <-time.After(10 * time.Second):
				}
			default:
				as.ServeHTTP(w, r)
			}
		})
		start := time.Now()
		fs, err := conformance.Check(conformance.Options{Protocol: "mcp-authorization", Handler: hostile, Timeout: 300 * time.Millisecond})
		Expect(err).NotTo(HaveOccurred())
		Expect(time.Since(start)).To(BeNumerically("<", 10*time.Second))
		v := map[string]string{}
		for _, f := range fs {
			v[f.Rule] = f.Verdict + " " + f.Message
		}
		Expect(v["MCP-AUTHZ-CODE-1"]).To(And(HavePrefix("skip"), ContainSubstring("redirects")))
		Expect(v["MCP-AUTHZ-ERR-1"]).To(HavePrefix("fail"), "a token endpoint that never answers refuses nothing")
	})

	It("skip the grant, saying how to go on, when the authorization endpoint asks a human to log in", func() {
		as, err := mcpauthz.New(mcpauthz.Options{})
		Expect(err).NotTo(HaveOccurred())
		login := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/authorize") {
				w.Header().Set("Content-Type", "text/html")
				_, _ = w.Write([]byte("<form>log in</form>"))
				return
			}
			as.ServeHTTP(w, r)
		})
		v := verdicts(login)
		Expect(v["MCP-AUTHZ-DCR-1"]).To(HavePrefix("pass"))
		Expect(v["MCP-AUTHZ-CODE-1"]).To(And(HavePrefix("skip"), ContainSubstring("log in"), ContainSubstring("--param code=")))
		Expect(v["MCP-AUTHZ-TOKEN-1"]).To(HavePrefix("skip"))
		// The token endpoint's errors need no code of the user's.
		Expect(v["MCP-AUTHZ-ERR-2"]).To(HavePrefix("pass"))
	})
})
