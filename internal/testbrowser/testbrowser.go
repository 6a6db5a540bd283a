// Package testbrowser starts the headless Chromium that the tests of the
// HTML report and certificate drive over the DevTools protocol (Debian's
// chromium, installed by .ci/run). One browser serves an Ordered
// container; each page opens in a tab of its own (chromedp.NewContext of
// the browser's context).
package testbrowser

import (
	"context"
	"os/exec"

	"github.com/chromedp/chromedp"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

// Path finds a Chromium; "" when the machine has none.
func Path() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Start starts the browser, for a BeforeAll, and returns its context; it
// ends with the container. Without a Chromium it skips the container,
// saying that what needs one does.
func Start(needs string) context.Context {
	ginkgo.GinkgoHelper()
	path := Path()
	if path == "" {
		ginkgo.Skip("no Chromium found (Debian package chromium, installed by .ci/run): " + needs + " needs one")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // CI runs as root
		chromedp.DisableGPU,
		// The machine has no network: nothing may try to reach one.
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-quic", true),
		chromedp.UserDataDir(ginkgo.GinkgoT().TempDir()),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ginkgo.DeferCleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(alloc)
	ginkgo.DeferCleanup(cancel)
	// Started now, once. No timeout on this first call: it would end the
	// browser with it.
	gomega.Expect(chromedp.Do(ctx)).To(gomega.Succeed(), "starting %s", path)
	return ctx
}
