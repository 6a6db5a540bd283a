// Package mcpclient is the MCP client role's suite (wirecheck run
// --protocol mcp --role client): wirecheck plays the MCP server a client
// under test talks to (serve.go answers what it asks), sends it the
// requests a server may (ping, roots/list, sampling/createMessage,
// elicitation/create) and notifications (list_changed, progress during a
// tool call), and judges what the client sends by specs/mcp-client.yaml.
// Each scenario launches the client afresh; a client does what its own
// program does, so a rule it gave no occasion to judge is a skip naming
// what it did not send.
package mcpclient
