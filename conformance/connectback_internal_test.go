package conformance

import (
	"bufio"
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the connect-back relay of a test binary", func() {
	// listenerDir is a folder as a stdio listener makes one.
	listenerDir := func() string {
		dir, err := os.MkdirTemp("", "wirecheck-client-")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(os.RemoveAll, dir)
		return dir
	}

	It("leaves any other arguments to the program: not its shape, not a listener's folder, not a socket", func() {
		var out, errw bytes.Buffer
		other, err := os.MkdirTemp("", "elsewhere-")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(os.RemoveAll, other)
		// A live socket, but not in a listener's folder.
		foreign, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(other, "s"), Net: "unix"})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(foreign.Close)
		file := filepath.Join(listenerDir(), "s")
		Expect(os.WriteFile(file, nil, 0o600)).To(Succeed())
		for _, args := range [][]string{
			{"prog"},
			{"prog", "connect-back"},
			{"prog", "-test.run", "X"},
			{"prog", "connect-back", filepath.Join(other, "s")},
			{"prog", "connect-back", file},
			{"prog", "connect-back", file, "more"},
		} {
			_, relayed := relay(args, strings.NewReader(""), &out, &errw)
			Expect(relayed).To(BeFalse(), "%q", args)
		}
		Expect(out.String() + errw.String()).To(BeEmpty())
	})

	It("relays the pipes to a listener's socket and exits 0 when the run ends the connection", func() {
		sock := filepath.Join(listenerDir(), "s")
		ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(ln.Close)
		got := make(chan string, 1)
		go func() {
			defer GinkgoRecover()
			c, err := ln.Accept()
			Expect(err).NotTo(HaveOccurred())
			defer c.Close()
			line, _ := bufio.NewReader(c).ReadString('\n')
			got <- line
			_, _ = c.Write([]byte("pong\n"))
		}()
		var out, errw bytes.Buffer
		code, relayed := relay([]string{"prog", "connect-back", sock}, strings.NewReader("ping\n"), &out, &errw)
		Expect(relayed).To(BeTrue())
		Expect(code).To(Equal(0), errw.String())
		Expect(<-got).To(Equal("ping\n"))
		Expect(out.String()).To(Equal("pong\n"))
	})

	It("exits 3 with the reason when the listener's socket takes no connection", func() {
		sock := filepath.Join(listenerDir(), "s")
		ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
		Expect(err).NotTo(HaveOccurred())
		ln.SetUnlinkOnClose(false)
		Expect(ln.Close()).To(Succeed())
		var out, errw bytes.Buffer
		code, relayed := relay([]string{"prog", "connect-back", sock}, strings.NewReader(""), &out, &errw)
		Expect(relayed).To(BeTrue())
		Expect(code).To(Equal(3))
		Expect(errw.String()).To(HavePrefix("wirecheck connect-back: "))
	})
})
