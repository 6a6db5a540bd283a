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
