package fuzz

import (
	"context"

	"github.com/wirecheck/wirecheck/internal/scenario"
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

// ShrinkHistory shrinks a history of units, each its steps, as confirm
// does: fails says whether a candidate still fails.
func ShrinkHistory(us [][]scenario.Step, fails func([][]scenario.Step) bool) [][]scenario.Step {
	units := make([]unit, len(us))
	for i, steps := range us {
		units[i] = unit{steps: steps}
	}
	steps := func(us []unit) [][]scenario.Step {
		out := make([][]scenario.Step, len(us))
		for i, u := range us {
			out[i] = u.steps
		}
		return out
	}
	return steps(shrinkUnits(units, func(c []unit) bool { return fails(steps(c)) }, func() bool { return false }))
}
