package sockets_test

import (
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/sockets"
)

func TestSockets(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Sockets Suite")
}

// Printed by Linux on x86-64: a listener on 0.0.0.0:2024, one on
// 127.0.0.1:20094 with a connection to it, and one on 192.168.1.5:8080.
const tcp = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode                                                     
   0: 00000000:07E8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1658 1 000000006b6b1a12 100 0 0 10 0                      
   1: 0100007F:4E7E 00000000:0000 0A 00000000:00000003 00:00000000 00000000     0        0 167635 5 0000000064927214 100 0 0 10 0                    
   2: 0100007F:C1A8 0100007F:4E7E 01 00000000:00000000 00:00000000 00000000     0        0 167700 1 0000000064927299 20 4 30 10 -1                   
   3: 0501A8C0:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 170001 1 0000000064927300 100 0 0 10 0                    
`

// Likewise for IPv6: [::1]:8931, [::]:8932, a connection, and
// [::ffff:127.0.0.1]:8933.
const tcp6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:22E3 00000000000000000000000000000000:0000 0A 00000000:00000001 00:00000000 00000000     0        0 180082 2 00000000da0b21be 100 0 0 10 0
   1: 00000000000000000000000000000000:22E4 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 180083 1 000000008bd62a95 100 0 0 10 0
   2: 00000000000000000000000001000000:E278 00000000000000000000000001000000:22E3 01 00000000:00000000 00:00000000 00000000     0        0 180084 2 00000000e4f5bf5a 20 0 0 10 -1
   3: 0000000000000000FFFF00000100007F:22E5 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 180085 1 000000008bd62a96 100 0 0 10 0
`

func ap(s string) netip.AddrPort { return netip.MustParseAddrPort(s) }

var _ = Describe("a /proc/net table", func() {
	It("reads the listening sockets of tcp, address, port and inode, and nothing else", func() {
		socks, err := sockets.ParseTableLE(tcp)
		Expect(err).NotTo(HaveOccurred())
		Expect(socks).To(Equal([]sockets.Socket{
			{Addr: ap("0.0.0.0:2024"), Inode: 1658},
			{Addr: ap("127.0.0.1:20094"), Inode: 167635},
			{Addr: ap("192.168.1.5:8080"), Inode: 170001},
		}))
	})

	It("reads tcp6's, IPv4-mapped ones included", func() {
		socks, err := sockets.ParseTableLE(tcp6)
		Expect(err).NotTo(HaveOccurred())
		Expect(socks).To(Equal([]sockets.Socket{
			{Addr: ap("[::1]:8931"), Inode: 180082},
			{Addr: ap("[::]:8932"), Inode: 180083},
			{Addr: ap("[::ffff:127.0.0.1]:8933"), Inode: 180085},
		}))
	})

	It("refuses a line it cannot read rather than guess", func() {
		_, err := sockets.ParseTableLE("  sl  local_address\n   0: 0100007F:4E7E 00000000:0000 0A\n")
		Expect(err).To(HaveOccurred())
		_, err = sockets.ParseTableLE("   0: 01007F:4E7E 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 1 1\n")
		Expect(err).To(MatchError(ContainSubstring("address")))
	})
})

var _ = DescribeTable("a listener's reach",
	func(addr string, loopback, wildcard bool) {
		l := sockets.Listener{Addr: ap(addr)}
		Expect(l.Loopback()).To(Equal(loopback))
		Expect(l.Wildcard()).To(Equal(wildcard))
	},
	Entry("127.0.0.1", "127.0.0.1:1", true, false),
	Entry("127.0.0.2", "127.0.0.2:1", true, false),
	Entry("::1", "[::1]:1", true, false),
	Entry("::ffff:127.0.0.1", "[::ffff:127.0.0.1]:1", true, false),
	Entry("0.0.0.0", "0.0.0.0:1", false, true),
	Entry("::", "[::]:1", false, true),
	Entry("192.168.1.5", "192.168.1.5:1", false, false),
)

// fakeProc lays out a proc tree: each process's stat (ppid, pgrp) and
// socket fds, and the tables of the first one's network namespace.
type proc struct {
	pid, ppid, pgrp int
	inodes          []uint64
}

func fakeProc(procs ...proc) string {
	root := GinkgoT().TempDir()
	for i, p := range procs {
		dir := filepath.Join(root, strconv.Itoa(p.pid))
		Expect(os.MkdirAll(filepath.Join(dir, "fd"), 0o755)).To(Succeed())
		stat := strconv.Itoa(p.pid) + " (a (strange) name) S " + strconv.Itoa(p.ppid) + " " + strconv.Itoa(p.pgrp) + " 0 0 0\n"
		Expect(os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644)).To(Succeed())
		Expect(os.Symlink("/dev/null", filepath.Join(dir, "fd", "0"))).To(Succeed())
		Expect(os.Symlink("pipe:[4]", filepath.Join(dir, "fd", "1"))).To(Succeed())
		for j, n := range p.inodes {
			Expect(os.Symlink("socket:["+strconv.FormatUint(n, 10)+"]", filepath.Join(dir, "fd", strconv.Itoa(3+j)))).To(Succeed())
		}
		if i == 0 {
			Expect(os.MkdirAll(filepath.Join(dir, "net"), 0o755)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(dir, "net", "tcp"), []byte(tcp), 0o644)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(dir, "net", "tcp6"), []byte(tcp6), 0o644)).To(Succeed())
		}
	}
	return root
}

var _ = Describe("the listening sockets of a process tree", func() {
	It("maps the sockets of the process, its descendants and its group to the tables", func() {
		root := fakeProc(
			proc{pid: 100, ppid: 1, pgrp: 100, inodes: []uint64{167635, 167700}},
			// A child, and its child in another group.
			proc{pid: 101, ppid: 100, pgrp: 100, inodes: []uint64{180082}},
			proc{pid: 102, ppid: 101, pgrp: 102, inodes: []uint64{180083}},
			// Daemonized: its parent gone, it stays in the group.
			proc{pid: 150, ppid: 1, pgrp: 100, inodes: []uint64{180085}},
			// Not of the tree: another server on 0.0.0.0.
			proc{pid: 200, ppid: 1, pgrp: 200, inodes: []uint64{1658}},
		)
		p := sockets.LittleEndianProc(root)
		tree, err := p.Tree(100)
		Expect(err).NotTo(HaveOccurred())
		Expect(tree).To(ConsistOf(100, 101, 102, 150))
		Expect(tree[0]).To(Equal(100))
		ls, err := p.Listening(100)
		Expect(err).NotTo(HaveOccurred())
		Expect(ls).To(ConsistOf(
			sockets.Listener{Addr: ap("127.0.0.1:20094"), PID: 100},
			sockets.Listener{Addr: ap("[::1]:8931"), PID: 101},
			sockets.Listener{Addr: ap("[::]:8932"), PID: 102},
			sockets.Listener{Addr: ap("[::ffff:127.0.0.1]:8933"), PID: 150},
		))
	})

	It("says so when the process is not there", func() {
		_, err := sockets.LittleEndianProc(fakeProc(proc{pid: 100, ppid: 1, pgrp: 100})).Listening(4242)
		Expect(err).To(MatchError(ContainSubstring("process 4242")))
	})

	It("reads this machine's own /proc: a listener of this process is found where it is bound", func() {
		if runtime.GOOS != "linux" {
			Skip("/proc is Linux's")
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(l.Close)
		ls, err := sockets.Proc{}.Listening(os.Getpid())
		Expect(err).NotTo(HaveOccurred())
		want := netip.MustParseAddrPort(l.Addr().String())
		Expect(ls).To(ContainElement(sockets.Listener{Addr: want, PID: os.Getpid()}))
	})
})
