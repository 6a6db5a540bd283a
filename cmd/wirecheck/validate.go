package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/internal/spec"
)

func newValidateCmd() *cobra.Command {
	var protocol, kind, mcpVer string
	var params []string
	cmd := &cobra.Command{
		Use:   "validate --protocol P [--kind K] [FILE|-]",
		Short: "Check JSON lines (frames a server sent) against the protocol's schemas",
		Long: `Reads one frame per line and validates each against the schema of its
message kind. Without --kind, each line is matched to the first kind whose
conditions it meets and whose schema accepts it (responses are taken without
the request they answer). A protocol with revisions (mcp) is judged by the
one --param <its version key>=V names (for mcp also --mcp-version V), by
its default otherwise. Exit 0 when every line is valid, 1 otherwise.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if protocol == "" {
				return usageErr("--protocol is required")
			}
			b, err := loadBundle(protocol)
			if err != nil {
				return err
			}
			proto, err := versionFor("validate", b.Protocol, params, mcpVer)
			if err != nil {
				return err
			}
			var in io.Reader = cmd.InOrStdin()
			name := "stdin"
			if len(args) == 1 && args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return usageErr("%v", err)
				}
				defer f.Close()
				in, name = f, args[0]
			}
			var forced *spec.Kind
			if kind != "" {
				if forced = proto.Kind(kind); forced == nil {
					var names []string
					for _, k := range proto.Kinds {
						names = append(names, fmt.Sprintf("%q", k.Name))
					}
					return usageErr("--kind %q: %s defines %v", kind, protocol, names)
				}
			}
			bad, n := 0, 0
			sc := bufio.NewScanner(in)
			sc.Buffer(make([]byte, 64<<10), 64<<20)
			out := cmd.OutOrStdout()
			for line := 1; sc.Scan(); line++ {
				raw := sc.Bytes()
				if len(raw) == 0 {
					continue
				}
				n++
				kindName, problems := validateLine(proto, b.Schemas, raw, forced)
				if len(problems) == 0 {
					fmt.Fprintf(out, "%s:%d: ok (%s)\n", name, line, kindName)
					continue
				}
				bad++
				for _, p := range problems {
					fmt.Fprintf(out, "%s:%d: %s\n", name, line, p)
				}
			}
			if err := sc.Err(); err != nil {
				return usageErr("%s: %v", name, err)
			}
			fmt.Fprintf(out, "%d lines: %d valid, %d invalid\n", n, n-bad, bad)
			if bad > 0 {
				return &exitError{code: exitViolations, err: fmt.Errorf("")}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&protocol, "protocol", "", "protocol whose schemas to use")
	cmd.Flags().StringVar(&kind, "kind", "", "validate every line as this message kind")
	cmd.Flags().StringArrayVar(&params, "param", nil, "KEY=VALUE: the protocol's version key picks the revision to judge by (e.g. mcp-version=2024-11-05)")
	cmd.Flags().StringVar(&mcpVer, "mcp-version", "", "MCP revision to judge by (protocol mcp; same as --param mcp-version=V)")
	return cmd
}

// versionFor resolves the protocol for the revision --param (its versions
// key) or --mcp-version names; the default revision otherwise. Commands
// that take no other --param (validate, fuzz, replay) name themselves in
// the message refusing one.
func versionFor(command string, p *spec.Protocol, kvs []string, mcpVer string) (*spec.Protocol, error) {
	params, err := parseParams(kvs, "param")
	if err != nil {
		return nil, err
	}
	if mcpVer != "" {
		params["mcp-version"] = mcpVer
	}
	key := ""
	if p.Versions != nil {
		key = p.Versions.Param
	}
	for k := range params {
		if k != key {
			if key == "" {
				return nil, usageErr("--param %s (or --mcp-version): protocol %s has no revisions to choose from", k, p.ID)
			}
			return nil, usageErr("--param %s: %s takes only --param %s=V (the revision to judge by)", k, command, key)
		}
	}
	if key == "" {
		return p, nil
	}
	q, err := p.ForVersion(params[key])
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return q, nil
}

// validateLine returns the kind a frame was taken as and what is wrong with
// it, each problem naming the rule it breaks.
func validateLine(p *spec.Protocol, reg *schema.Registry, raw []byte, forced *spec.Kind) (string, []string) {
	v, err := schema.Decode(raw)
	if err != nil {
		return "", []string{"not JSON: " + err.Error()}
	}
	candidates := []*spec.Kind{forced}
	if forced == nil {
		candidates = nil
		for _, k := range p.Kinds {
			// An invalid kind is the answer to a line the peer sent raw,
			// which a file of frames cannot tell.
			if k.Role != spec.RoleRequestOut && !k.Invalid && peer.Matches(v, k.When) {
				candidates = append(candidates, k)
			}
		}
		if len(candidates) == 0 {
			return "", []string{"matches no message kind of " + p.ID}
		}
		// A notification or a server request names its method, so its
		// first kind decides, as in the peer; only an answer, whose
		// request a file of frames lacks, may be any of its kinds.
		if r := candidates[0].Role; r == spec.RoleNotification || r == spec.RoleRequest {
			candidates = candidates[:1]
		}
	}
	var first []string
	for _, k := range candidates {
		var problems []string
		for _, c := range peer.SchemaChecks(p, k, k.Method, v) {
			if err := reg.Get(c.Schema).Validate(at(v, c.At)); err != nil {
				title := k.Name
				if r := p.Rule(c.Rule); r != nil {
					title = r.Title
				}
				problems = append(problems, fmt.Sprintf("%s: %s (%s): %s", c.Rule, title, reg.Path(c.Schema), schema.Explain(err)))
			}
		}
		if len(problems) == 0 {
			return k.Name, nil
		}
		if first == nil {
			first = problems
		}
	}
	return candidates[0].Name, first
}

// at is the part of a frame a kind's schema applies to (the whole frame
// when ptr is empty).
func at(v any, ptr string) any {
	part, _ := peer.Pointer(v, ptr)
	return part
}
