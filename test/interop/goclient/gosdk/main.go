// Command gosdk is a real MCP client for `wirecheck run
// --protocol mcp --role client`: the Go SDK's mcp.Client over its
// CommandTransport, as an application would use it:
//
//	gosdk SERVER-CMD [ARGS…]
//
// It declares roots, sampling and elicitation (CAPS=bare: none) and
// answers them, pings (before 2026-07-28), lists and calls tools (one with a progress token,
// one whose result is an error; with CANCEL=early one whose context was
// cancelled before the call), reads a resource and gets a prompt where
// the server declared them, and closes. Given a URL it speaks Streamable
// HTTP; with OAUTH=1 it authorizes when answered 401 with the SDK's
// AuthorizationCodeHandler (dynamic registration, grant types
// authorization_code and refresh_token, RequestRefreshToken), a fetcher
// that follows the authorization endpoint's redirect standing in for the
// browser. It lives in a
// module of its own so that wirecheck's module does not depend on the SDK;
// internal/interop builds it.
package main

//lint:file-ignore SA1019 sampling and roots, deprecated by 2026-07-28, are what the earlier revisions ask of a client.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: go-sdk-client SERVER-CMD [ARGS…]")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "go-sdk-client:", err)
		os.Exit(1)
	}
}

func run(cmd string, args []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	opts := &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {}}
	if os.Getenv("CAPS") == "bare" {
		// A non-nil Capabilities without RootsV2 declares nothing.
		opts.Capabilities = &mcp.ClientCapabilities{}
	} else {
		opts.CreateMessageHandler = func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Content: &mcp.TextContent{Text: "hi"}, Model: "m", StopReason: "endTurn"}, nil
		}
		opts.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-client", Version: "1.0.0"}, opts)
	if os.Getenv("CAPS") != "bare" {
		client.AddRoots(&mcp.Root{URI: "file:///tmp", Name: "tmp"})
	}
	var transport mcp.Transport = &mcp.CommandTransport{Command: exec.Command(cmd, args...)}
	if strings.HasPrefix(cmd, "http://") || strings.HasPrefix(cmd, "https://") {
		t := &mcp.StreamableClientTransport{Endpoint: cmd}
		if os.Getenv("OAUTH") == "1" {
			h, err := oauthHandler()
			if err != nil {
				return err
			}
			t.OAuthHandler = h
		}
		transport = t
	}
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return err
	}
	defer func() { _ = cs.Close() }()
	// 2026-07-28 has no ping: only a session of an earlier revision pings.
	switch cs.InitializeResult().ProtocolVersion {
	case "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25":
		if err := cs.Ping(ctx, nil); err != nil {
			return fmt.Errorf("ping: %w", err)
		}
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}}
	params.SetProgressToken("go-sdk-progress")
	if _, err := cs.CallTool(ctx, params); err != nil {
		return fmt.Errorf("tools/call echo: %w", err)
	}
	// A result with isError is the tool's failure, not the call's.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fail", Arguments: map[string]any{}}); err != nil {
		return fmt.Errorf("tools/call fail: %w", err)
	}
	// Only what the server declared (basic/lifecycle#operation).
	if caps := cs.InitializeResult().Capabilities; caps != nil {
		if caps.Resources != nil {
			if _, err := cs.ListResources(ctx, nil); err != nil {
				return fmt.Errorf("resources/list: %w", err)
			}
			if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///wirecheck/readme.txt"}); err != nil {
				return fmt.Errorf("resources/read: %w", err)
			}
		}
		if caps.Prompts != nil {
			if _, err := cs.ListPrompts(ctx, nil); err != nil {
				return fmt.Errorf("prompts/list: %w", err)
			}
			if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"}); err != nil {
				return fmt.Errorf("prompts/get: %w", err)
			}
		}
	}
	if os.Getenv("CANCEL") == "early" {
		// A call whose context is cancelled before it is made: the SDK
		// writes no request, yet sends notifications/cancelled for the
		// id it took (wirecheck: MCP-CLIENT-CANCEL-1).
		cctx, ccancel := context.WithCancel(ctx)
		ccancel()
		_, _ = cs.CallTool(cctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "y"}})
		// Give the SDK's asynchronous cancellation time to be written.
		time.Sleep(200 * time.Millisecond)
	}
	return nil
}

// redirectURL is where the authorization server sends the code: nothing
// listens there, the fetcher reads the redirect.
const redirectURL = "http://127.0.0.1/callback"

// oauthHandler is the SDK's authorization-code flow with dynamic client
// registration; its fetcher plays the browser.
func oauthHandler() (auth.OAuthHandler, error) {
	return auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "go-sdk-client", RedirectURIs: []string{redirectURL}, TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"},
		}},
		RedirectURL:         redirectURL,
		RequestRefreshToken: true,
		// ACCEPT_UNADVERTISED_ISS=1: the issuer's iss accepted though the
		// metadata does not advertise it (2026-07-28's table, third row);
		// the SDK's default rejects it.
		AcceptUnadvertisedIss: os.Getenv("ACCEPT_UNADVERTISED_ISS") == "1",
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, args.URL, nil)
			if err != nil {
				return nil, err
			}
			hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			resp, err := hc.Do(req)
			if err != nil {
				return nil, err
			}
			resp.Body.Close()
			loc, err := url.Parse(resp.Header.Get("Location"))
			if err != nil || loc.Query().Get("code") == "" {
				return nil, errors.New("authorization: no code in the redirect")
			}
			q := loc.Query()
			return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
		},
	})
}
