package protocols_test

// tableParams are the --param settings of a protocol's runs in the
// tables: the checks a default run leaves out because they cost a real
// server something (sophon's rate limit spends the token's minute),
// which a reference server of the tables' own can afford.
var tableParams = map[string]map[string]string{
	"sophon": {"rate_limit": "check"},
}
