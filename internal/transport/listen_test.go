//go:build unix

package transport_test

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/transport"
)

var _ = Describe("the stdio listener of the client role", func() {
	listen := func() transport.Listener {
		k, ok := transport.Lookup(transport.Stdio)
		Expect(ok).To(BeTrue())
		Expect(k.Listen).NotTo(BeNil())
		l, err := k.Listen(transport.ListenOptions{Binary: "/path/to/wirecheck"})
		Expect(err).NotTo(HaveOccurred())
		return l
	}
	// relay is connect-back as the client's server process runs it: its
	// stdin and stdout are pipes whose other ends the test holds.
	relay := func(l transport.Listener) (toRelay *os.File, fromRelay *bufio.Reader, done chan error) {
		inR, inW, err := os.Pipe()
		Expect(err).NotTo(HaveOccurred())
		outR, outW, err := os.Pipe()
		Expect(err).NotTo(HaveOccurred())
		done = make(chan error, 1)
		go func() {
			done <- transport.ConnectBack(filepath.Join(filepath.Dir(l.Endpoint()), "s"), inR, outW, time.Second)
			inR.Close()
			outW.Close()
		}()
		DeferCleanup(func() { inW.Close(); outR.Close() })
		return inW, bufio.NewReader(outR), done
	}

	It("is an executable script that execs connect-back with the socket, gone with the listener", func() {
		l := listen()
		b, err := os.ReadFile(l.Endpoint())
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(HavePrefix("#!/bin/sh\nexec '/path/to/wirecheck' connect-back '"))
		fi, err := os.Stat(l.Endpoint())
		Expect(err).NotTo(HaveOccurred())
		Expect(fi.Mode() & 0o100).NotTo(BeZero())
		Expect(l.Close()).To(Succeed())
		_, err = os.Stat(filepath.Dir(l.Endpoint()))
		Expect(os.IsNotExist(err)).To(BeTrue())
	})

	It("ends Accept when its context ends", func() {
		l := listen()
		defer l.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := l.Accept(ctx)
		Expect(err).To(MatchError(context.DeadlineExceeded))
	})

	It("carries lines both ways; the client's end of input ends the connection and the relay", func() {
		l := listen()
		defer l.Close()
		in, out, done := relay(l)
		c, err := l.Accept(context.Background())
		Expect(err).NotTo(HaveOccurred())
		defer c.Close()
		Expect(c.Send([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))).To(Succeed())
		line, err := out.ReadString('\n')
		Expect(err).NotTo(HaveOccurred())
		Expect(line).To(Equal(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"))
		_, err = in.WriteString(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n")
		Expect(err).NotTo(HaveOccurred())
		var f transport.Frame
		Eventually(c.Recv()).Should(Receive(&f))
		Expect(string(f.Raw)).To(Equal(`{"jsonrpc":"2.0","id":1,"result":{}}`))
		in.Close()
		Eventually(c.Done()).Should(BeClosed())
		Expect(c.Close()).To(Succeed())
		Eventually(done).Should(Receive())
	})

	It("ends the relay at once when wirecheck closes the connection", func() {
		l := listen()
		defer l.Close()
		_, out, done := relay(l)
		c, err := l.Accept(context.Background())
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Close()).To(Succeed())
		Eventually(done, 500*time.Millisecond).Should(Receive())
		_, err = out.ReadString('\n')
		Expect(err).To(MatchError(io.EOF))
	})
})
