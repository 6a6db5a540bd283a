package fuzz

import (
	"context"

	"github.com/wirecheck/wirecheck/internal/session"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// RequestLabel and MalformationLabels let the tests check the labels
// failures are grouped under.
var (
	RequestLabel = requestLabel
	InvalidLabel = invalidLabel
)

func MalformationLabels() []string {
	var out []string
	for _, m := range malformations {
		out = append(out, m.label)
	}
	return out
}

// Seeds are the seeds of a shard's batches, as the campaign draws them.
var Seeds = seeds

// Spawned is how many processes a campaign launched, the spares it never
// used included (Stats.Starts counts those it used).
func Spawned(c *Campaign) int64 { return c.spares.Spawned() }

// SessionOptions are the options a campaign opens each session with
// (its observations going to observe), for tests that build the peer of
// fuzz's path over a transport of their own.
func SessionOptions(c *Campaign, observe verdict.Observer) session.Options {
	if c.ctx == nil {
		c.ctx = context.Background()
	}
	return c.sessionOptions(observe)
}
