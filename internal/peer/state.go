package peer

import "sync"

// state is what suites keep about one server process (see State).
type state struct {
	mu sync.Mutex
	m  map[any]any
}

// State returns the value kept on this peer under key, made by init the
// first time key is asked for. A peer talks to one server process, so what
// a suite learns about that process (the session its handshake set up,
// a silence it observed) lives here: it is gone with the peer when the
// process is replaced, where a package-level map keyed by the peer would
// keep it, and every peer ever used, for the life of wirecheck.
//
// Keys follow context.WithValue's advice: an unexported type of the
// suite's own, so no two suites share a value by accident. State is safe
// for concurrent use; the value it returns guards itself.
func (p *Peer) State(key any, init func() any) any {
	p.state.mu.Lock()
	defer p.state.mu.Unlock()
	if v, ok := p.state.m[key]; ok {
		return v
	}
	if p.state.m == nil {
		p.state.m = map[any]any{}
	}
	v := init()
	p.state.m[key] = v
	return v
}
