package sockets

import (
	"encoding/binary"
	"net/netip"
	"strings"
)

// The sample tables of the tests were printed by a little-endian machine
// (x86-64); these read them as such on any machine.

// Socket is a listening socket of a table and its inode.
type Socket struct {
	Addr  netip.AddrPort
	Inode uint64
}

// ParseTableLE parses a table printed by a little-endian machine.
func ParseTableLE(text string) ([]Socket, error) {
	socks, err := parseTable(strings.NewReader(text), binary.LittleEndian)
	var out []Socket
	for _, s := range socks {
		out = append(out, Socket{Addr: s.addr, Inode: s.inode})
	}
	return out, err
}

// LittleEndianProc reads a proc tree copied from a little-endian machine.
func LittleEndianProc(root string) Proc { return Proc{Root: root, order: binary.LittleEndian} }
