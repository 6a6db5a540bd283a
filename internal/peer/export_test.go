package peer

// AnsweredBodies counts the answers the table of answered calls holds with
// their bytes or decoded value.
func (p *Peer) AnsweredBodies() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, c := range p.answered {
		if r := c.Response; r != nil && (r.Raw != nil || r.Value != nil) {
			n++
		}
	}
	return n
}

// Part is part, the bytes a cached pass is found by.
var Part = part

// Passes counts the parts the cache of passes holds.
func Passes() int {
	passed.mu.Lock()
	defer passed.mu.Unlock()
	n := 0
	for _, m := range passed.bySchema {
		n += len(m)
	}
	return n
}
