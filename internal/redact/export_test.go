package redact

// Unfiltered is Text without the scan that skips the regexp.
func Unfiltered(s string) string { return authValue.ReplaceAllString(s, "${1}${2}"+Mask) }
