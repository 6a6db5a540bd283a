package mcpauthz_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/pkce"
	"github.com/wirecheck/wirecheck/internal/refserver/mcpauthz"
)

func TestMcpauthz(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Mcpauthz Suite")
}

// What a test of MCP clients does with the mock: mount it, pre-register a
// client, run the code grant as a client would, watch the requests and
// verify the token it issued.
var _ = Describe("the reference authorization server as a handler", func() {
	It("issues, for a pre-registered public client, a JWT for the resource asked that Verify accepts, and shows every request to Observe", func() {
		var seen []mcpauthz.Request
		const redirect = "http://127.0.0.1:1/callback"
		as, err := mcpauthz.New(mcpauthz.Options{
			Clients: []mcpauthz.Client{{ID: "mcp-client", RedirectURIs: []string{redirect}}},
			Observe: func(r mcpauthz.Request) { seen = append(seen, r) },
		})
		Expect(err).NotTo(HaveOccurred())
		srv := httptest.NewServer(as)
		defer srv.Close()
		hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

		verifier := "a-verifier-long-enough-for-pkce-0123456789abcdef"
		q := url.Values{"response_type": {"code"}, "client_id": {"mcp-client"}, "redirect_uri": {redirect}, "state": {"s1"},
			"code_challenge": {pkce.S256(verifier)}, "code_challenge_method": {"S256"}, "resource": {"https://mcp.example/mcp"}}
		resp, err := hc.Get(srv.URL + "/authorize?" + q.Encode())
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.StatusCode).To(Equal(http.StatusFound))
		loc, err := url.Parse(resp.Header.Get("Location"))
		Expect(err).NotTo(HaveOccurred())
		Expect(loc.Query().Get("state")).To(Equal("s1"))
		Expect(loc.Query().Get("iss")).To(Equal(srv.URL))

		form := url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")}, "redirect_uri": {redirect},
			"code_verifier": {verifier}, "client_id": {"mcp-client"}, "resource": {"https://mcp.example/mcp"}}
		resp, err = hc.Post(srv.URL+"/token", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		var tok struct {
			AccessToken string `json:"access_token"`
		}
		Expect(json.NewDecoder(resp.Body).Decode(&tok)).To(Succeed())

		c, err := as.Verify(tok.AccessToken, srv.URL, "https://mcp.example/mcp")
		Expect(err).NotTo(HaveOccurred())
		Expect(c.ClientID).To(Equal("mcp-client"))
		_, err = as.Verify(tok.AccessToken, srv.URL, "https://other.example/mcp")
		Expect(err).To(HaveOccurred(), "a token is not accepted for another resource")

		Expect(seen).To(HaveLen(2))
		Expect(seen[0].Endpoint).To(Equal("authorize"))
		Expect(seen[0].Form.Get("resource")).To(Equal("https://mcp.example/mcp"))
		Expect(seen[1].Endpoint).To(Equal("token"))
		Expect(seen[1].Form.Get("code_verifier")).To(Equal(verifier))
	})

	It("takes a client it has never met by the URL of its Client ID Metadata Document, and refuses a document that is not the URL's", func() {
		const redirect = "http://127.0.0.1:1/callback"
		docs := http.NewServeMux()
		var base string
		docs.HandleFunc("/client.json", func(w http.ResponseWriter, r *http.Request) {
			_ = json.NewEncoder(w).Encode(map[string]any{"client_id": base + "/client.json", "client_name": "c", "redirect_uris": []string{redirect}})
		})
		docs.HandleFunc("/other.json", func(w http.ResponseWriter, r *http.Request) {
			_ = json.NewEncoder(w).Encode(map[string]any{"client_id": base + "/client.json", "client_name": "c", "redirect_uris": []string{redirect}})
		})
		ds := httptest.NewServer(docs)
		defer ds.Close()
		base = ds.URL
		as, err := mcpauthz.New(mcpauthz.Options{HTTPClientIDs: true})
		Expect(err).NotTo(HaveOccurred())
		srv := httptest.NewServer(as)
		defer srv.Close()
		hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		authorize := func(clientID string) *http.Response {
			q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect}, "state": {"s"},
				"code_challenge": {pkce.S256("v-0123456789012345678901234567890123456789")}, "code_challenge_method": {"S256"}}
			resp, err := hc.Get(srv.URL + "/authorize?" + q.Encode())
			Expect(err).NotTo(HaveOccurred())
			return resp
		}
		resp := authorize(ds.URL + "/client.json")
		Expect(resp.StatusCode).To(Equal(http.StatusFound))
		Expect(resp.Header.Get("Location")).To(HavePrefix(redirect + "?"))
		Expect(authorize(ds.URL+"/other.json").StatusCode).To(Equal(http.StatusBadRequest), "a document whose client_id is another URL")

		resp, err = hc.Get(srv.URL + "/.well-known/oauth-authorization-server")
		Expect(err).NotTo(HaveOccurred())
		var m map[string]any
		Expect(json.NewDecoder(resp.Body).Decode(&m)).To(Succeed())
		Expect(m["client_id_metadata_document_supported"]).To(BeTrue())
	})
})
