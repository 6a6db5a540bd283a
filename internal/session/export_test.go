package session

// Hook is hook, for a test's own transport.
var Hook = hook
