// Command mcpgo is a real MCP client for `wirecheck run --protocol mcp
// --role client`: mcp-go's client.Client over its stdio transport, as an
// application would use it:
//
//	mcpgo SERVER-CMD [ARGS…]
//
// It declares roots, sampling and elicitation (CAPS=bare: none) and
// answers them, pings (the SDK sends nothing under 2026-07-28), lists and calls tools (one
// with a progress token, one whose result is an error), reads a resource
// and gets a prompt where the server declared them, and closes. It lives
// in a module of its own so that wirecheck's module does not depend on
// mcp-go; internal/interop builds it.
package main

//lint:file-ignore SA1019 ping, deprecated by 2026-07-28, is what the earlier revisions have.

import (
	"context"
	"fmt"
	"os"
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
	// Start launches the server and installs the client's handlers of
	// the server's requests (ping among them).
	c := client.NewClient(transport.NewStdio(cmd, nil, args...), opts...)
	if err := c.Start(ctx); err != nil {
		return err
	}
	defer func() { _ = c.Close() }()
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "mcpgo-client", Version: "1.0.0"}
	_, err := c.Initialize(ctx, init)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	// Ping sends nothing on a 2026-07-28 connection, which has no ping.
	if err := c.Ping(ctx); err != nil {
		return fmt.Errorf("ping: %w", err)
	}
	if _, err := c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	call := mcp.CallToolRequest{}
	call.Params.Name, call.Params.Arguments = "echo", map[string]any{"text": "x"}
	call.Params.Meta = &mcp.Meta{ProgressToken: "mcpgo-progress"}
	if _, err := c.CallTool(ctx, call); err != nil {
		return fmt.Errorf("tools/call echo: %w", err)
	}
	fail := mcp.CallToolRequest{}
	fail.Params.Name, fail.Params.Arguments = "fail", map[string]any{}
	if _, err := c.CallTool(ctx, fail); err != nil {
		return fmt.Errorf("tools/call fail: %w", err)
	}
	// Only what the server declared (basic/lifecycle#operation).
	caps := c.GetServerCapabilities()
	if caps.Resources != nil {
		if _, err := c.ListResources(ctx, mcp.ListResourcesRequest{}); err != nil {
			return fmt.Errorf("resources/list: %w", err)
		}
		read := mcp.ReadResourceRequest{}
		read.Params.URI = "file:///wirecheck/readme.txt"
		if _, err := c.ReadResource(ctx, read); err != nil {
			return fmt.Errorf("resources/read: %w", err)
		}
	}
	if caps.Prompts != nil {
		if _, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{}); err != nil {
			return fmt.Errorf("prompts/list: %w", err)
		}
		get := mcp.GetPromptRequest{}
		get.Params.Name = "greet"
		if _, err := c.GetPrompt(ctx, get); err != nil {
			return fmt.Errorf("prompts/get: %w", err)
		}
	}
	return nil
}
