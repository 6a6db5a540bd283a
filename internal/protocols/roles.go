package protocols

import (
	"fmt"
	"sort"
	"strings"

	mcpclientserver "github.com/wirecheck/wirecheck/internal/refserver/mcpclient"
	mcpclientsuite "github.com/wirecheck/wirecheck/internal/suite/mcpclient"
)

// Roles: --role server is a protocol's own module; --role client is one
// of these, a module of its own (its spec specs/<module>.yaml, its
// scenarios, its reference client) that `wirecheck protocols` does not
// list apart, reached as PickRole(protocol, "client").
const (
	RoleServer = "server"
	RoleClient = "client"
)

type roleModule struct {
	protocol, role string
	module         Module
}

var roles = []roleModule{
	{protocol: "mcp", role: RoleClient, module: module{id: "mcp-client", scenarios: mcpclientsuite.Scenarios, serve: mcpclientserver.Serve, steps: mcpclientsuite.StepHandler, params: mcpclientsuite.CheckParams, judge: mcpclientsuite.NewJudge}},
}

// RoleModule is the ID of the module that checks protocol's role, for
// the role given: the protocol's own for the server role.
func RoleModule(protocol, role string) (string, error) {
	switch role {
	case "", RoleServer:
		return protocol, nil
	case RoleClient:
	default:
		return "", fmt.Errorf("--role %q: want server or client", role)
	}
	var with []string
	for _, r := range roles {
		if r.protocol == protocol && r.role == role {
			return r.module.ID(), nil
		}
		with = append(with, r.protocol)
	}
	return "", fmt.Errorf("--role client: wirecheck checks no %s client (protocols with a client role: %s)", protocol, strings.Join(with, ", "))
}

// PickRole is Pick of protocol's module for role.
func PickRole(protocol, role string) (*Bundle, error) {
	if protocol == "" {
		return Pick("")
	}
	if _, err := Lookup(protocol); err != nil {
		return nil, err
	}
	if p, r := RoleOf(protocol); r != RoleServer {
		// Its rules are listed under its own id; a run reaches it as a role.
		return nil, fmt.Errorf("--protocol %s is the %s role of %s: run it as --protocol %s --role %s", protocol, r, p, p, r)
	}
	id, err := RoleModule(protocol, role)
	if err != nil {
		return nil, err
	}
	return Load(id)
}

// RoleOf is the protocol and role a module checks: a role module's
// protocol and role, or the module itself as the server role.
func RoleOf(id string) (protocol, role string) {
	for _, r := range roles {
		if r.module.ID() == id {
			return r.protocol, r.role
		}
	}
	return id, RoleServer
}

// AllIDs lists every module: the protocols (IDs) and their roles' modules,
// each with a spec of its own.
func AllIDs() []string {
	out := IDs()
	for _, r := range roles {
		out = append(out, r.module.ID())
	}
	sort.Strings(out)
	return out
}
