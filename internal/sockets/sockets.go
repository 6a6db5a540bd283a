// Package sockets tells, on Linux, which TCP addresses a process and its
// descendants listen on, from /proc alone: where a server wirecheck
// launched is bound (MCP-BIND-1) is read off the machine, never tried by
// connecting to one of its other addresses, which would send packets
// beyond loopback that the user never asked for.
package sockets

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Listener is one listening TCP socket and a process that holds it.
type Listener struct {
	Addr netip.AddrPort
	PID  int
}

// Loopback reports whether the socket accepts connections from this
// machine only: 127.0.0.0/8 or ::1 (an IPv4-mapped loopback too).
func (l Listener) Loopback() bool { return l.Addr.Addr().Unmap().IsLoopback() }

// Wildcard reports whether the socket is bound to every interface
// (0.0.0.0 or ::).
func (l Listener) Wildcard() bool { return l.Addr.Addr().Unmap().IsUnspecified() }

func (l Listener) String() string { return l.Addr.String() }

// Proc reads a proc file system.
type Proc struct {
	// Root is where it is mounted ("" for /proc).
	Root string
	// order is how the kernel prints an address's 32-bit words: the
	// machine's own order (a test reading another machine's text sets
	// it).
	order binary.ByteOrder
}

func (p Proc) path(parts ...string) string {
	root := p.Root
	if root == "" {
		root = "/proc"
	}
	return filepath.Join(append([]string{root}, parts...)...)
}

func (p Proc) byteOrder() binary.ByteOrder {
	if p.order == nil {
		return binary.NativeEndian
	}
	return p.order
}

// Tree lists pid, its descendants (by each process's parent in its
// stat) and the members of its process group (a launched server leads
// one: a child that daemonized, its parent gone, stays in it), pid first.
func (p Proc) Tree(pid int) ([]int, error) {
	if _, err := os.Stat(p.path(strconv.Itoa(pid))); err != nil {
		return nil, fmt.Errorf("process %d: %w", pid, err)
	}
	names, err := os.ReadDir(p.path())
	if err != nil {
		return nil, err
	}
	children := map[int][]int{}
	var group []int
	for _, d := range names {
		n, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(p.path(d.Name(), "stat"))
		if err != nil {
			continue // exited meanwhile
		}
		ppid, pgrp, ok := parseStat(stat)
		if !ok {
			continue
		}
		children[ppid] = append(children[ppid], n)
		if pgrp == pid {
			group = append(group, n)
		}
	}
	tree := []int{pid}
	seen := map[int]bool{pid: true}
	for i := 0; i < len(tree); i++ {
		for _, c := range children[tree[i]] {
			if !seen[c] {
				seen[c] = true
				tree = append(tree, c)
			}
		}
	}
	for _, g := range group {
		if !seen[g] {
			seen[g] = true
			tree = append(tree, g)
		}
	}
	return tree, nil
}

// parseStat reads the parent and the process group of a /proc/<pid>/stat
// line: "pid (comm) state ppid pgrp …", where comm may hold spaces and
// parentheses, so the fields are counted from its last ')'.
func parseStat(stat []byte) (ppid, pgrp int, ok bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 3 {
		return 0, 0, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	pgrp, err2 := strconv.Atoi(string(f[2]))
	return ppid, pgrp, err1 == nil && err2 == nil
}

// Inodes lists the socket inodes among a process's open files.
func (p Proc) Inodes(pid int) ([]uint64, error) {
	dir := p.path(strconv.Itoa(pid), "fd")
	fds, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []uint64
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(dir, fd.Name()))
		if err != nil {
			continue // closed meanwhile
		}
		if s, ok := strings.CutPrefix(link, "socket:["); ok {
			if n, err := strconv.ParseUint(strings.TrimSuffix(s, "]"), 10, 64); err == nil {
				out = append(out, n)
			}
		}
	}
	return out, nil
}

// Listening lists the listening TCP sockets, IPv4 and IPv6, that the
// process pid and its tree (Tree) hold, as the network namespace of pid
// sees them. A process of the tree whose files cannot be read (another
// user's) is passed over; pid's own must be readable.
func (p Proc) Listening(pid int) ([]Listener, error) {
	tree, err := p.Tree(pid)
	if err != nil {
		return nil, err
	}
	owner := map[uint64]int{}
	for i, q := range tree {
		inodes, err := p.Inodes(q)
		if err != nil {
			if i == 0 {
				return nil, err
			}
			continue
		}
		for _, n := range inodes {
			if _, ok := owner[n]; !ok {
				owner[n] = q
			}
		}
	}
	var out []Listener
	for _, table := range []string{"tcp", "tcp6"} {
		f, err := os.Open(p.path(strconv.Itoa(pid), "net", table))
		if errors.Is(err, fs.ErrNotExist) && table == "tcp6" {
			continue // no IPv6 on this machine
		}
		if err != nil {
			return nil, err
		}
		listening, err := parseTable(f, p.byteOrder())
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", table, err)
		}
		for _, s := range listening {
			if q, ok := owner[s.inode]; ok {
				out = append(out, Listener{Addr: s.addr, PID: q})
			}
		}
	}
	return out, nil
}

type socket struct {
	addr  netip.AddrPort
	inode uint64
}

// tcpListen is the state column's value for a listening socket
// (include/net/tcp_states.h: TCP_LISTEN).
const tcpListen = "0A"

// parseTable reads the listening sockets of a /proc/net/tcp or tcp6
// table: "sl local_address rem_address st … uid timeout inode …", the
// address as hex words in the kernel's byte order, the port as hex.
func parseTable(r io.Reader, order binary.ByteOrder) ([]socket, error) {
	sc := bufio.NewScanner(r)
	var out []socket
	header := true
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if header {
			header = false
			if len(f) > 0 && f[0] == "sl" {
				continue
			}
		}
		if len(f) < 10 {
			if len(f) == 0 {
				continue
			}
			return nil, fmt.Errorf("a line of %d fields: %q", len(f), sc.Text())
		}
		if f[3] != tcpListen {
			continue
		}
		addr, err := parseAddr(f[1], order)
		if err != nil {
			return nil, err
		}
		inode, err := strconv.ParseUint(f[9], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("inode %q: %w", f[9], err)
		}
		out = append(out, socket{addr: addr, inode: inode})
	}
	return out, sc.Err()
}

// parseAddr reads "0100007F:1F90" (IPv4) or 32 hex digits and a port
// (IPv6): each 32-bit word of the address printed as the number it is in
// the kernel's memory.
func parseAddr(s string, order binary.ByteOrder) (netip.AddrPort, error) {
	host, port, ok := strings.Cut(s, ":")
	if !ok || (len(host) != 8 && len(host) != 32) {
		return netip.AddrPort{}, fmt.Errorf("address %q", s)
	}
	raw, err := hex.DecodeString(host)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("address %q: %w", s, err)
	}
	b := make([]byte, len(raw))
	for i := 0; i < len(raw); i += 4 {
		order.PutUint32(b[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	pn, err := strconv.ParseUint(port, 16, 16)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("port of %q: %w", s, err)
	}
	a, _ := netip.AddrFromSlice(b)
	return netip.AddrPortFrom(a, uint16(pn)), nil
}
