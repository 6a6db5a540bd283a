package protocols_test

// tableParams are the --param settings of a protocol's runs in the
// tables: the checks a default run leaves out because they cost a real
// server something (sophon's rate limit spends the token's minute),
// which a reference server of the tables' own can afford.
var tableParams = map[string]map[string]string{
	"sophon": {"rate_limit": "check"},
}

// tableRevisions are the revisions the tables run a protocol under when
// not every one of its base's: sophon's document pins 2024-11-05 and its
// reference server speaks only that, so a run under a later revision
// judges it by rules its document never took on (2025-03-26's
// authorization discovery, 2026-07-28's server/discover) and fails them,
// as it should: the report of such a run is a finding, not the profile's
// proof.
var tableRevisions = map[string][]string{
	"sophon": {"2024-11-05"},
}
