package protocols_test

// pendingRuns are the runs of the HTTP tables that do not hold yet, each
// with why: the part that lacks is named, so whoever lands it deletes the
// line and records the run (UPDATE_VERDICTS=1). A pending run is neither
// run nor recorded; its spec is skipped with the reason, so the gap shows
// in every test run instead of hiding in a passing table. None is pending
// since the 2026-07-28 scenarios (http-headers, http-cancel, http-era)
// landed.
var pendingRuns = map[string]string{}

// pendingWhy says why r is not run yet, "" when it is.
func pendingWhy(r run) string {
	return pendingRuns[r.String()]
}

// pendingEntry stands in a table for a pending run.
func pendingEntry(why string) run { return run{Kind: "pending", Name: why} }

// undecided are the rules no scenario decides yet; every rule has one now.
var undecided = map[string]bool{}
