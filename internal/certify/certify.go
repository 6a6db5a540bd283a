// Package certify is one run of a protocol's suite as `wirecheck run`
// and the Go API (package conformance) make it: the request checked
// (bad input is the user's to fix, before any server starts), the
// scenarios selected, the run, and the baseline applied. Both callers
// only gather the request and write the report.
package certify

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/shard"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/target"
)

// Request is one run, as the flags of `wirecheck run` say it.
type Request struct {
	Bundle *protocols.Bundle
	// Params are the run's settings, the revision's among them
	// (protocols.Settings.Params).
	Params map[string]string
	Target target.Target
	// Scenarios and Rules select by glob (--scenario, --rules).
	Scenarios, Rules []string
	// Baseline is a file of known failures; Strict fails the run on an
	// entry judged and no longer failing.
	Baseline string
	Strict   bool
	Seed     uint64
	// Jobs bounds the lanes at once (--jobs, at least 1).
	Jobs                    int
	Timeout, StartupTimeout time.Duration
	Shard                   shard.Shard
	// Rerun, when set, is the head of every finding's reproduce line;
	// Run fills in the rules and the seed.
	Rerun *target.Rerun
	// Revisions, when more than one, run the suite once in each, side by
	// side, into one report with a column per revision (--revision all);
	// Params then name none.
	Revisions []string
}

// Plan is a checked request, ready to run.
type Plan struct {
	req   Request
	cfg   runner.Config
	known *report.Baseline
}

// Prepare checks the request. Its errors are the user's input at fault,
// each naming the flag (and the file and line, for a baseline).
func Prepare(r Request) (*Plan, error) {
	if r.Jobs < 1 {
		return nil, fmt.Errorf("--jobs %d: want 1 or more", r.Jobs)
	}
	if err := spec.CheckGlobs(r.Rules, r.Scenarios); err != nil {
		return nil, err
	}
	if err := CheckRules(r.Bundle.Protocol, r.Rules); err != nil {
		return nil, err
	}
	known, unmapped, err := loadBaseline(r.Baseline, r.Bundle.Protocol.ID)
	if err == nil && known != nil {
		err = checkBaseline(r.Bundle.Protocol, known)
	}
	if err == nil && r.Strict && len(unmapped) > 0 {
		// As for an entry naming no rule: a baseline that excuses
		// nothing it says must not pass a strict run unnoticed.
		err = fmt.Errorf("--baseline-strict: %s", strings.Join(unmapped, "; "))
	}
	switch {
	case err != nil:
		return nil, err
	case r.Strict && known == nil:
		return nil, errors.New("--baseline-strict needs --baseline FILE")
	case r.Strict:
		known.Strict = true
	}
	scs, err := scenario.Select(r.Bundle.Scenarios, r.Scenarios)
	if err != nil {
		return nil, err
	}
	if r.Rerun != nil {
		rr := *r.Rerun
		if rr.Rules = r.Rules; r.Seed != 1 {
			rr.Seed = r.Seed
		}
		r.Rerun = &rr
	}
	b := r.Bundle
	return &Plan{req: r, known: known, cfg: runner.Config{
		Protocol: b.Protocol, Schemas: b.Schemas, Scenarios: scs, Handler: b.Handler, Judge: b.Judge, Target: r.Target,
		Timeout: r.Timeout, StartupTimeout: r.StartupTimeout, Jobs: r.Jobs,
		Rules: r.Rules, Seed: r.Seed, Params: r.Params, Partial: len(r.Scenarios) > 0,
		Rerun: r.Rerun, Shard: r.Shard,
	}}, nil
}

// Run runs the plan, told to live as it goes (nil: nobody), and returns
// the report with the baseline applied, and the run's error (the target
// never started, the run was interrupted).
func (p *Plan) Run(ctx context.Context, live runner.Progress) (*report.Report, error) {
	cfg := p.cfg
	cfg.Progress = live
	ids := &identities{}
	cfg.Identified = ids.add
	var rep *report.Report
	var err error
	if len(p.req.Revisions) > 1 {
		rep, err = revisions(ctx, cfg, p.req.Revisions, p.req.Bundle.RevisionParam())
		var ps []*spec.Protocol
		for _, id := range p.req.Revisions {
			if q, err := cfg.Protocol.ForVersion(id); err == nil {
				ps = append(ps, q)
			}
		}
		ids.certify(rep, p.req.Target.Client, ps...)
	} else {
		rep, err = runner.Run(ctx, cfg)
		ids.certify(rep, p.req.Target.Client, cfg.Protocol)
	}
	p.known.Apply(rep)
	return rep, err
}
