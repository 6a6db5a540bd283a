package peer_test

import (
	"encoding/json"

	"github.com/wirecheck/wirecheck/internal/transport"
)

func decodeOnly(b []byte) (any, error) {
	var v any
	err := json.Unmarshal(b, &v)
	return v, err
}

// newFakeB is the in-memory transport for benchmarks (no Ginkgo there).
func newFakeB() *fake {
	return &fake{frames: make(chan transport.Frame, 1024), exited: make(chan struct{})}
}
