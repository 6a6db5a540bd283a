// Package oauthtest sends the token requests tests make by hand to an
// OAuth authorization server (RFC 6749 §3.2): a form POST, the client's
// credentials in HTTP Basic when given. The reference authorization
// server's tests and those of the HTTP listener that mounts it both make
// them; only _test.go files import this package.
package oauthtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

// Post posts form to the token endpoint u, with basic's id and secret in
// HTTP Basic when it holds the two, and returns the answer's status and
// body.
func Post(u string, form url.Values, basic ...string) (int, []byte) {
	ginkgo.GinkgoHelper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if len(basic) == 2 {
		req.SetBasicAuth(basic[0], basic[1])
	}
	resp, err := http.DefaultClient.Do(req)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return resp.StatusCode, body
}

// PostJSON is Post for an answer that must be JSON (RFC 6749 §5.1 and
// §5.2 answer success and error alike with an object), decoded.
func PostJSON(u string, form url.Values, basic ...string) (int, map[string]any) {
	ginkgo.GinkgoHelper()
	code, body := Post(u, form, basic...)
	var out map[string]any
	gomega.Expect(json.Unmarshal(body, &out)).To(gomega.Succeed(), "the token endpoint's answer (%d) is no JSON: %s", code, body)
	return code, out
}
