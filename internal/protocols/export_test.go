package protocols

import "github.com/wirecheck/wirecheck/internal/scenario"

// WithTestModule registers a module with no Go parts of its own under id
// (a profile's test double) until the returned func is called.
func WithTestModule(id string, scenarios func() []*scenario.Scenario) (remove func()) {
	mu.Lock()
	defer mu.Unlock()
	n := len(modules)
	modules = append(modules[:n:n], module{id: id, scenarios: scenarios, serve: func(ServeOptions) int { return 0 }})
	return func() {
		mu.Lock()
		defer mu.Unlock()
		modules = modules[:n:n]
	}
}

// Servable is servable, for the test that it agrees with Check on the
// whole spec.
var Servable = servable
