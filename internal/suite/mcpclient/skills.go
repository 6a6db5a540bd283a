package mcpclient

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// The skills extension's host side (io.modelcontextprotocol/skills,
// SEP-2640): wirecheck plays a 2026-07-28 server that declares it, lists
// three skills and serves their files, and judges what the client fetches.
// No user or model of the run asks for a skill, but a client's own command
// may: a load of one skill is left unjudged, and only what no load
// explains fails.

const skillsExt = "io.modelcontextprotocol/skills"

// servedSkill is one skill of client-skills: a SKILL.md that names its
// one supporting file by a relative path, as a skill's instructions do.
type servedSkill struct {
	name, description, support, supportText string
}

var servedSkills = []servedSkill{
	{"git-workflow", "Follow the team's Git conventions for branches and commits", "references/GUIDE.md", "Branch from main; one topic per branch.\n"},
	{"release-notes", "Write release notes from merged changes", "templates/NOTES.md", "## Added\n\n## Fixed\n"},
	{"incident-review", "Run a blameless review of an incident", "references/CHECKLIST.md", "1. Timeline\n2. Causes\n3. Actions\n"},
}

func (s servedSkill) root() string    { return "skill://" + s.name }
func (s servedSkill) skillMD() string { return s.root() + "/SKILL.md" }

func (s servedSkill) skillMDText() string {
	return "---\nname: " + s.name + "\ndescription: " + s.description + "\n---\n\n# " + s.name + "\n\nRead " + s.support + " before you start.\n"
}

// files are the skill's files, URI to text, SKILL.md first.
func (s servedSkill) files() [][2]string {
	return [][2]string{{s.skillMD(), s.skillMDText()}, {s.root() + "/" + s.support, s.supportText}}
}

func (s servedSkill) entry() map[string]any {
	var res []any
	for _, f := range s.files() {
		sum := sha256.Sum256([]byte(f[1]))
		res = append(res, map[string]any{"uri": f[0], "digest": "sha256:" + hex.EncodeToString(sum[:]), "size": len(f[1])})
	}
	return map[string]any{"uri": s.skillMD(), "frontmatter": map[string]any{"name": s.name, "description": s.description}, "resources": res}
}

// skillFile finds the skill and file a URI names: ok false for none, md
// true for a SKILL.md.
func skillFile(uri string) (s servedSkill, text string, md, ok bool) {
	for _, s := range servedSkills {
		for i, f := range s.files() {
			if f[0] == uri {
				return s, f[1], i == 0, true
			}
		}
	}
	return servedSkill{}, "", false, false
}

// skillsState is what the client of client-skills did with the skills.
type skillsState struct {
	listed   int             // line of its first skills/list, 0: none
	loaded   map[string]bool // skills whose SKILL.md it fetched
	fetched  []string        // the skill files it fetched, in order
	early    int             // line of a supporting file fetched before its SKILL.md, 0: none
	earlyURI string
	dirRead  int // line of its first resources/directory/read, 0: none
	dirURI   string
}

func skillsScenario() *scenario.Scenario {
	return &scenario.Scenario{
		Name:  "client-skills",
		Title: "2026-07-28: play a server declaring the skills extension (" + skillsExt + ", no directoryRead) with three skills, each a SKILL.md naming one supporting file: asked for none, the client fetches no skill file ahead of need and reads no directory",
		Rules: []string{"MCP-CLIENT-SKILLS-1", "MCP-CLIENT-SKILLS-2"},
		Fresh: true,
		Run:   skills,
	}
}

func skills(env *scenario.Env) error {
	if !applies(env, "MCP-CLIENT-SKILLS-1") {
		_ = env.CloseInput()
		env.Closed = true
		return nil
	}
	c := conv{skills: &skillsState{loaded: map[string]bool{}}}
	if err := c.serve(env); err != nil {
		return err
	}
	st := c.skills
	if c.legacy {
		for _, r := range []string{"MCP-CLIENT-SKILLS-1", "MCP-CLIENT-SKILLS-2"} {
			env.Skip(r, "the client opened with initialize: its session is of "+legacyRevision+", and the skills extension is of 2026-07-28 on")
		}
		return nil
	}
	engaged := st.listed != 0 || len(st.fetched) > 0
	switch {
	case st.dirRead != 0:
		env.Fail("MCP-CLIENT-SKILLS-2", st.dirRead, "the client read the directory "+st.dirURI+" though the server's skills extension declares no directoryRead", "no resources/directory/read", "resources/directory/read "+st.dirURI)
	case engaged:
		env.Pass("MCP-CLIENT-SKILLS-2", -1)
	default:
		env.Skip("MCP-CLIENT-SKILLS-2", "the client used none of the skills extension (no skills/list, no skill file read)")
	}
	switch {
	case st.early != 0:
		env.Fail("MCP-CLIENT-SKILLS-1", st.early, "the client fetched "+st.earlyURI+", a supporting file, before the SKILL.md of its skill: a retrieval no load of the skill asked for", "a supporting file fetched only once its skill is loaded (its SKILL.md fetched)", st.earlyURI)
	case len(st.loaded) == len(servedSkills) && st.listed != 0:
		env.Fail("MCP-CLIENT-SKILLS-1", -1, fmt.Sprintf("the client fetched the SKILL.md of every skill listed (%d), as on listing, with nothing in the run asking for a skill", len(servedSkills)), "no skill file fetched before a skill is needed", strings.Join(st.fetched, ", "))
	case len(st.fetched) > 0:
		env.Skip("MCP-CLIENT-SKILLS-1", "the client loaded a skill ("+strings.Join(st.fetched, ", ")+"): a load its model or user asked for is what the text allows, and the wire does not show what asked")
	case st.listed == 0:
		env.Skip("MCP-CLIENT-SKILLS-1", "the client never listed skills (skills/list) nor fetched a skill file: it does not use the extension")
	default:
		env.Pass("MCP-CLIENT-SKILLS-1", st.listed)
	}
	return nil
}

// skillsRequest answers, as client-skills' server, a request of the
// skills extension or a read of a skill file, and records it: true when
// it has answered.
func (c *conv) skillsRequest(in *peer.Inbound, method string, id any) (bool, error) {
	st := c.skills
	uri, _ := in.Field("/params/uri")
	u, _ := uri.(string)
	var resp map[string]any
	switch method {
	case "skills/list":
		if st.listed == 0 {
			st.listed = in.Seq
		}
		var list []any
		for _, s := range servedSkills {
			list = append(list, s.entry())
		}
		resp = result(id, map[string]any{"skills": list})
	case "skills/get":
		s, _, md, ok := skillFile(u)
		if !ok || !md {
			resp = rpcError(id, -32602, "no skill is served at "+u)
		} else {
			resp = result(id, map[string]any{"skill": s.entry()})
		}
	case "resources/directory/read":
		if st.dirRead == 0 {
			st.dirRead, st.dirURI = in.Seq, u
		}
		resp = rpcError(id, -32601, "method not found: this server declares no directoryRead")
	case "resources/read":
		s, text, md, ok := skillFile(u)
		if !ok {
			return false, nil
		}
		st.fetched = append(st.fetched, u)
		if md {
			st.loaded[s.name] = true
		} else if !st.loaded[s.name] && st.early == 0 {
			st.early, st.earlyURI = in.Seq, u
		}
		// Every file of the three skills is markdown.
		resp = result(id, map[string]any{"contents": []any{map[string]any{"uri": u, "mimeType": "text/markdown", "text": text}}})
	default:
		return false, nil
	}
	modernize(resp, method)
	if r, ok := resp["result"].(map[string]any); ok && (method == "skills/list" || method == "skills/get" || method == "resources/read") {
		r["cacheScope"], r["ttlMs"] = "private", 0
	}
	_, err := c.env.Reply(resp)
	return true, err
}

// skillsCaps are wirecheck's capabilities in client-skills: its usual
// ones and the extension, without directoryRead.
func skillsCaps() map[string]any {
	caps := serverCaps()
	caps["extensions"] = map[string]any{skillsExt: map[string]any{}}
	return caps
}
