package httpmcp

import (
	"net/http"
	"sync"
	"time"
)

// The sessions of a run share their HTTP transport, and so its idle
// connections: a run against one server opens some 135 sessions, and
// each with a transport of its own dialled (and closed) every connection
// it used, some 250 a run, their socket, connect and close a tenth of a
// run's CPU. What a session owns stays its own: its headers, its session
// id, the guard every request passes (loopback), its redirects. A
// transport is shared by the sessions open at once with the same
// --timeout; the last to close it closes its idle connections, so
// nothing of it runs once no session does.
var shared = struct {
	mu sync.Mutex
	by map[sharedKey]*sharedTransport
	// gen is the dialler's generation (tests stand one in): a transport
	// dials with the dialler it was made with.
	gen int
}{by: map[sharedKey]*sharedTransport{}}

type sharedKey struct {
	timeout time.Duration
	gen     int
	// own is set for a session's own transport, shared with nobody.
	own *sharedTransport
}

type sharedTransport struct {
	ht    *http.Transport
	users int
}

// maxIdlePerHost bounds the idle connections a shared transport keeps to
// one server: a lane's next session takes one, and net/http's default (2)
// closed most of those that several lanes' sessions left.
const maxIdlePerHost = 16

// acquireTransport is the transport for a session with the given
// --timeout, shared unless own; releaseTransport gives it back.
func acquireTransport(timeout time.Duration, own bool) *http.Transport {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	k := sharedKey{timeout: timeout, gen: shared.gen}
	st := shared.by[k]
	if st == nil || own {
		st = &sharedTransport{ht: &http.Transport{
			Proxy:                  http.ProxyFromEnvironment,
			DialContext:            dialContext,
			ResponseHeaderTimeout:  timeout,
			MaxResponseHeaderBytes: maxHeaderBytes,
			TLSHandshakeTimeout:    timeout,
			IdleConnTimeout:        30 * time.Second,
			MaxIdleConns:           4 * maxIdlePerHost,
			MaxIdleConnsPerHost:    maxIdlePerHost,
			ForceAttemptHTTP2:      true,
		}}
		if own {
			k.own = st
		}
		shared.by[k] = st
	}
	st.users++
	return st.ht
}

func releaseTransport(ht *http.Transport) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	for k, st := range shared.by {
		if st.ht != ht {
			continue
		}
		if st.users--; st.users == 0 {
			delete(shared.by, k)
			ht.CloseIdleConnections()
		}
		return
	}
}
