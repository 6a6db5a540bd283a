// Command gosdk is a real MCP client for `wirecheck run
// --protocol mcp --role client`: the Go SDK's mcp.Client over its
// CommandTransport, as an application would use it:
//
//	gosdk SERVER-CMD [ARGS…]
//	gosdk URL   (Streamable HTTP; OAUTH=1: authorizes with the SDK's
//	             auth.AuthorizationCodeHandler, see oauth.go)
//
// It declares roots, sampling and elicitation (CAPS=bare: none) and
// answers them, pings (before 2026-07-28), lists and calls tools (one with a progress token,
// one whose result is an error; with CANCEL=early one whose context was
// cancelled before the call), reads a resource and gets a prompt where
// the server declared them, and closes. Given a URL it speaks Streamable
// HTTP; with OAUTH=1 it authorizes when answered 401 with the SDK's
// AuthorizationCodeHandler (pre-registered, a Client ID Metadata
// Document, or dynamic registration with grant types authorization_code
// and refresh_token; RequestRefreshToken), a fetcher that follows the
// authorization endpoint's redirect standing in for the browser. It lives in a
// module of its own so that wirecheck's module does not depend on the SDK;
// internal/interop builds it.
package main

//lint:file-ignore SA1019 sampling and roots, deprecated by 2026-07-28, are what the earlier revisions ask of a client.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
		st := &mcp.StreamableClientTransport{Endpoint: cmd}
		if os.Getenv("OAUTH") == "1" {
			h, err := oauthHandler()
			if err != nil {
				return err
			}
			st.OAuthHandler = h
		}
		transport = st
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
