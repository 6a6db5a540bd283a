package report

// Internal helpers exposed to the external test package.
var (
	Clean  = clean
	Cut    = cut
	Fenced = fenced
)
