package session

// Hook is hook, for a test's own transport.
var Hook = hook

// Waiting is how many lanes wait for a pool's lane.
func Waiting(p *Pool) int {
	p.lanes.mu.Lock()
	defer p.lanes.mu.Unlock()
	return len(p.lanes.waiting)
}
