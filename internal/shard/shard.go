// Package shard cuts one run or one fuzz campaign across machines (a CI
// matrix, a Kubernetes Indexed Job): shard i of n takes every n-th piece
// of work, counted from i, so the shards partition the work whatever
// machine runs them, and `wirecheck report merge` recombines them.
package shard

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is one part of n. The zero value is the whole (1 of 1).
type Shard struct {
	// Index counts from 1, as CI matrices and the flag do.
	Index, Count int
}

// Parse reads "i/n" (--shard), 1 ≤ i ≤ n.
func Parse(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("%q: want i/n with 1 ≤ i ≤ n, e.g. 2/4", s)
	}
	return Shard{Index: i, Count: n}, nil
}

// Whole reports whether s is all of the work.
func (s Shard) Whole() bool { return s.Count <= 1 }

// Has reports whether the k-th piece of work (from 0) is this shard's.
func (s Shard) Has(k int) bool {
	if s.Whole() {
		return true
	}
	return k%s.Count == s.Index-1
}

// Share is how many of total pieces this shard takes.
func (s Shard) Share(total int) int {
	if s.Whole() {
		return total
	}
	n := total / s.Count
	if s.Index <= total%s.Count {
		n++
	}
	return n
}

func (s Shard) String() string {
	if s.Whole() {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Set and Type make a *Shard a command-line flag value (--shard i/n).
func (s *Shard) Set(v string) error {
	p, err := Parse(v)
	if err != nil {
		return err
	}
	*s = p
	return nil
}

// Type names the flag's value in help text.
func (s *Shard) Type() string { return "i/n" }
