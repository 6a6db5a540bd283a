//go:build unix

package transport_test

import (
	"bufio"
	"errors"
	"io"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/transport"
)

var _ = Describe("an in-process server", func() {
	echo := func(in io.Reader, out io.Writer) error {
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			if _, err := out.Write(append(sc.Bytes(), '\n')); err != nil {
				return err
			}
		}
		return nil
	}
	recv := func(tr transport.Transport) string {
		var f transport.Frame
		Eventually(tr.Recv(), 5*time.Second).Should(Receive(&f))
		return string(f.Raw)
	}

	It("reads what is sent and its lines are frames; it exits 0 when its input ends", func() {
		tr, err := transport.InProcess(echo, transport.Options{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(tr.Close)
		Expect(tr.Send([]byte(`{"a":1}`))).To(Succeed())
		Expect(recv(tr)).To(Equal(`{"a":1}`))
		Expect(tr.CloseInput()).To(Succeed())
		Eventually(tr.Exited(), 5*time.Second).Should(BeClosed())
		Expect(tr.ExitStatus().Code).To(Equal(0))
		Eventually(tr.Recv(), 5*time.Second).Should(BeClosed())
	})

	It("exits 1 with its error on stderr, and 2 with a panic's", func() {
		for code, serve := range map[int]transport.ServeFunc{
			1: func(io.Reader, io.Writer) error { return errors.New("cannot serve: no config") },
			2: func(io.Reader, io.Writer) error { panic("boom") },
		} {
			tr, err := transport.InProcess(serve, transport.Options{})
			Expect(err).NotTo(HaveOccurred())
			Eventually(tr.Exited(), 5*time.Second).Should(BeClosed())
			Expect(tr.ExitStatus().Code).To(Equal(code))
			var f transport.Frame
			Eventually(tr.Stderr(), 5*time.Second).Should(Receive(&f))
			Expect(string(f.Raw)).To(Or(Equal("cannot serve: no config"), Equal("panic: boom")))
			Expect(tr.Close()).To(Succeed())
		}
	})

	It("never hangs Close on a server that ignores its input ending, and says so", func() {
		release := make(chan struct{})
		DeferCleanup(func() { close(release) })
		tr, err := transport.InProcess(func(io.Reader, io.Writer) error { <-release; return nil }, transport.Options{Grace: 50 * time.Millisecond})
		Expect(err).NotTo(HaveOccurred())
		closed := make(chan error, 1)
		go func() { closed <- tr.Close() }()
		var cerr error
		Eventually(closed, 5*time.Second).Should(Receive(&cerr))
		Expect(cerr).To(MatchError(ContainSubstring("still running")))
	})

	It("caps a flood like a launched server's", func() {
		tr, err := transport.InProcess(func(in io.Reader, out io.Writer) error {
			line := make([]byte, 1<<20)
			for i := range line {
				line[i] = 'x'
			}
			for i := 0; i < 64; i++ {
				if _, err := out.Write(append(line, '\n')); err != nil {
					return nil
				}
			}
			return nil
		}, transport.Options{MaxFrame: 1 << 10, MaxBuffered: 4 << 10})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(tr.Close)
		var f transport.Frame
		Eventually(tr.Recv(), 5*time.Second).Should(Receive(&f))
		Expect(f.Oversize).To(BeTrue())
		Expect(len(f.Raw)).To(BeNumerically("<=", 1<<10))
	})
})
