package conformance

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"
)

// loopback serves h on a loopback port until end is called. end closes
// every connection, the ones whose calls are still running included (an
// httptest.Server's Close waits for those, forever for a handler that
// never returns), then waits up to grace for the calls to return: a
// *HungError counts those that did not, left running.
func loopback(h http.Handler, grace time.Duration) (url string, end func() error, err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("serving the Handler on a loopback port: %w", err)
	}
	var (
		mu      sync.Mutex
		running int
		idle    = make(chan struct{}, 1)
	)
	counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		running++
		mu.Unlock()
		defer func() {
			mu.Lock()
			running--
			mu.Unlock()
			select {
			case idle <- struct{}{}:
			default:
			}
		}()
		h.ServeHTTP(w, r)
	})
	// The server's own complaints (a peer gone mid-write) are no finding.
	srv := &http.Server{Handler: counted, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(ln)
	}()
	end = func() error {
		// Close, not Shutdown: Shutdown waits for active connections.
		_ = srv.Close()
		<-served
		deadline := time.NewTimer(grace)
		defer deadline.Stop()
		for {
			mu.Lock()
			n := running
			mu.Unlock()
			if n == 0 {
				return nil
			}
			select {
			case <-idle:
			case <-deadline.C:
				return &HungError{Calls: n, Grace: grace}
			}
		}
	}
	return "http://" + ln.Addr().String(), end, nil
}
