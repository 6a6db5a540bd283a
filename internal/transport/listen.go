package transport

import "context"

// Conn is one client's connection to wirecheck playing the server:
// messages both ways, framing the transport's.
type Conn interface {
	// Send writes one message to the client (a response, a request or a
	// notification of wirecheck's).
	Send(msg []byte) error
	// WriteRaw writes bytes with no framing where the transport has a
	// byte stream (malformed input); an error where it has none.
	WriteRaw(b []byte) error
	// Recv delivers what the client sent, in arrival order.
	Recv() <-chan Frame
	// Done is closed when the client has gone (stdio: the connection
	// closed; HTTP: DELETE or the listener closed).
	Done() <-chan struct{}
	// Close ends the connection (HTTP: the session; later requests with
	// its id get 404).
	Close() error
}

// Listener waits for the client under test to connect.
type Listener interface {
	// Endpoint replaces the placeholder in the client's argv and --env:
	// {server} for stdio (an executable path), {url} for HTTP.
	Endpoint() string
	// Accept waits for the client's next connection (HTTP: a new session,
	// i.e. an initialize POST without a session id).
	Accept(ctx context.Context) (Conn, error)
	Close() error
}

// Provisioner is a Listener that gives the client more than its
// endpoint: words its argv and --env values may name ("{client_id}",
// "{issuer}"), each replaced at launch by what the listener made for it
// or knows only once listening (credentials an operator would provision
// the client with, the issuer of the authorization server they belong
// to).
type Provisioner interface {
	Provisions() map[string]string
}

// ListenOptions are what a Kind's Listen is handed.
type ListenOptions struct {
	// Path is the URL path an HTTP endpoint is served on ("" = Kind.Path).
	Path string
	// MaxFrame caps one frame read; 0 is DefaultMaxFrame.
	MaxFrame int
	// Hooks, when set, receive the transport's own observations (HTTP
	// header checks) as the server-role transports report theirs.
	Hooks *Hooks
	// Binary is the wirecheck executable the stdio {server} shim execs
	// (os.Executable() in the CLI, testbin's path in tests).
	Binary string
}
