package progress

import "time"

// SetClock stands a test's clock in for the wall clock.
func SetClock(r *Run, now func() time.Time) { r.now = now }
