// Command mcpgo is a real MCP client for `wirecheck run --protocol mcp
// --role client`: mcp-go's client.Client over its stdio transport, as an
// application would use it:
//
//	mcpgo SERVER-CMD [ARGS…]
//
// It declares roots, sampling and elicitation (CAPS=bare: none) and
// answers them, pings (the SDK sends nothing under 2026-07-28), lists and calls tools (one
// with a progress token, one whose result is an error), reads a resource
// and gets a prompt where the server declared them, and closes. Given a
// URL it speaks Streamable HTTP; with OAUTH=1 it authorizes when a request
// fails for want of it, as mcp-go's OAuth flow has an application do
// (register, the authorization URL, the code, ProcessAuthorizationResponse;
// a redirect-following fetch plays the browser), then sends it again. It lives
// in a module of its own so that wirecheck's module does not depend on
// mcp-go; internal/interop builds it.
package main

//lint:file-ignore SA1019 ping, deprecated by 2026-07-28, is what the earlier revisions have.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

type handlers struct{}

func (handlers) CreateMessage(context.Context, mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return &mcp.CreateMessageResult{SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("hi")}, Model: "m", StopReason: "endTurn"}, nil
}

func (handlers) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///tmp", Name: "tmp"}}}, nil
}

func (handlers) Elicit(context.Context, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}, nil
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: mcpgo SERVER-CMD [ARGS…]")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "mcpgo:", err)
		os.Exit(1)
	}
}

func run(cmd string, args []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var opts []client.ClientOption
	if os.Getenv("CAPS") != "bare" {
		opts = append(opts, client.WithSamplingHandler(handlers{}), client.WithRootsHandler(handlers{}), client.WithElicitationHandler(handlers{}))
	}
	s := &session{ctx: ctx, cmd: cmd, args: args, opts: opts}
	if err := s.connect(nil); err != nil {
		return err
	}
	defer func() { _ = s.c.Close() }()
	// Ping sends nothing on a 2026-07-28 connection, which has no ping.
	if err := s.do(func(c *client.Client) error { return c.Ping(ctx) }); err != nil {
		return fmt.Errorf("ping: %w", err)
	}
	if err := s.do(func(c *client.Client) error { _, err := c.ListTools(ctx, mcp.ListToolsRequest{}); return err }); err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	call := mcp.CallToolRequest{}
	call.Params.Name, call.Params.Arguments = "echo", map[string]any{"text": "x"}
	call.Params.Meta = &mcp.Meta{ProgressToken: "mcpgo-progress"}
	if err := s.do(func(c *client.Client) error { _, err := c.CallTool(ctx, call); return err }); err != nil {
		return fmt.Errorf("tools/call echo: %w", err)
	}
	// A result with isError is the tool's failure, not the call's.
	fail := mcp.CallToolRequest{}
	fail.Params.Name, fail.Params.Arguments = "fail", map[string]any{}
	if err := s.do(func(c *client.Client) error { _, err := c.CallTool(ctx, fail); return err }); err != nil {
		return fmt.Errorf("tools/call fail: %w", err)
	}
	// Only what the server declared (basic/lifecycle#operation).
	caps := s.c.GetServerCapabilities()
	if caps.Resources != nil {
		if _, err := s.c.ListResources(ctx, mcp.ListResourcesRequest{}); err != nil {
			return fmt.Errorf("resources/list: %w", err)
		}
		read := mcp.ReadResourceRequest{}
		read.Params.URI = "file:///wirecheck/readme.txt"
		if _, err := s.c.ReadResource(ctx, read); err != nil {
			return fmt.Errorf("resources/read: %w", err)
		}
	}
	if caps.Prompts != nil {
		if _, err := s.c.ListPrompts(ctx, mcp.ListPromptsRequest{}); err != nil {
			return fmt.Errorf("prompts/list: %w", err)
		}
		get := mcp.GetPromptRequest{}
		get.Params.Name = "greet"
		if _, err := s.c.GetPrompt(ctx, get); err != nil {
			return fmt.Errorf("prompts/get: %w", err)
		}
	}
	return nil
}

// session is the client's connection to its server. mcp-go's OAuth
// transport asks for authorization before it sends anything, so the
// client connects without it, as an application that does not know
// whether a server is protected would, and on a 401 (OAUTH=1) connects
// again with it: a new session, authorized first (the challenge's
// resource_metadata handed on).
type session struct {
	ctx   context.Context
	cmd   string
	args  []string
	opts  []client.ClientOption
	c     *client.Client
	oauth bool
}

// connect starts a client and initializes its session; oauth, set, is
// the OAuth configuration of its transport.
func (s *session) connect(oauth *transport.OAuthConfig) error {
	var tr transport.Interface = transport.NewStdio(s.cmd, nil, s.args...)
	if strings.HasPrefix(s.cmd, "http://") || strings.HasPrefix(s.cmd, "https://") {
		var hopts []transport.StreamableHTTPCOption
		if oauth != nil {
			hopts = append(hopts, transport.WithHTTPOAuth(*oauth))
		}
		h, err := transport.NewStreamableHTTP(s.cmd, hopts...)
		if err != nil {
			return err
		}
		tr = h
	}
	// Start launches the server and installs the client's handlers of
	// the server's requests (ping among them).
	s.c = client.NewClient(tr, s.opts...)
	if err := s.c.Start(s.ctx); err != nil {
		return err
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "mcpgo-client", Version: "1.0.0"}
	if err := s.do(func(c *client.Client) error { _, err := c.Initialize(s.ctx, init); return err }); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	return nil
}

// do runs step; refused for want of authorization, it authorizes (once)
// and runs it again.
func (s *session) do(step func(*client.Client) error) error {
	err := step(s.c)
	switch {
	case client.IsOAuthAuthorizationRequiredError(err):
		if err := authorize(s.ctx, client.GetOAuthHandler(err)); err != nil {
			return err
		}
		return step(s.c)
	case os.Getenv("OAUTH") == "1" && !s.oauth && client.IsAuthorizationRequiredError(err):
		s.oauth = true
		_ = s.c.Close()
		if err := s.connect(&transport.OAuthConfig{RedirectURI: redirectURI, PKCEEnabled: true, TokenStore: client.NewMemoryTokenStore(),
			ProtectedResourceMetadataURL: client.GetResourceMetadataURL(err)}); err != nil {
			return err
		}
		return step(s.c)
	}
	return err
}

// redirectURI is where the authorization server sends the code: nothing
// listens there, the fetch reads the redirect.
const redirectURI = "http://127.0.0.1/callback"

// authorize runs mcp-go's OAuth flow as its handler has an application
// run it, a redirect-following fetch playing the browser.
func authorize(ctx context.Context, h *transport.OAuthHandler) error {
	if h.GetClientID() == "" {
		if err := h.RegisterClient(ctx, "mcpgo-client"); err != nil {
			return fmt.Errorf("registration: %w", err)
		}
	}
	verifier, err := client.GenerateCodeVerifier()
	if err != nil {
		return err
	}
	state, err := client.GenerateState()
	if err != nil {
		return err
	}
	u, err := h.GetAuthorizationURL(ctx, state, client.GenerateCodeChallenge(verifier))
	if err != nil {
		return fmt.Errorf("authorization URL: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || loc.Query().Get("code") == "" {
		return errors.New("authorization: no code in the redirect")
	}
	if err := h.ProcessAuthorizationResponse(ctx, loc.Query().Get("code"), loc.Query().Get("state"), verifier); err != nil {
		return fmt.Errorf("token: %w", err)
	}
	return nil
}
