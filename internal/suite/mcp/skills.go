package mcp

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// The skills extension (io.modelcontextprotocol/skills, SEP-2640), judged
// in 2026-07-28 sessions of a server that declares it.

const skillsExt = "io.modelcontextprotocol/skills"

var skillsRules = []string{"MCP-SKILLS-1", "MCP-SKILLS-2", "MCP-SKILLS-3", "MCP-SKILLS-4", "MCP-SKILLS-5", "MCP-SKILLS-6",
	"MCP-SKILLS-7", "MCP-SKILLS-8", "MCP-SKILLS-9", "MCP-SKILLS-10", "MCP-SKILLS-11", "MCP-SKILLS-12", "MCP-SKILLS-13",
	"MCP-SKILLS-14", "MCP-SKILLS-15", "MCP-SKILLS-16", "MCP-SKILLS-17", "MCP-SKILLS-18", "MCP-SKILLS-19", "MCP-SKILLS-20",
	"MCP-SKILLS-21"}

func skillsScenario() *scenario.Scenario {
	return &scenario.Scenario{
		Name:  "skills",
		Title: "2026-07-28, a server declaring the skills extension: skills/list paged, each entry's shape, manifest, digests and frontmatter checked against the files read, skills/get of each and of an unknown one, directories read",
		Rules: skillsRules,
		Run:   skills,
	}
}

// skillsBudget bounds the files read to verify digests, so a large
// catalog costs a bounded number of round trips.
const skillsBudget = 40

// skillPass passes a rule once per scenario unless it failed: the checks
// below fail as they find a fault and pass what was never faulted.
type skillVerdicts struct {
	e      *scenario.Env
	failed map[string]bool
	seen   map[string]int
}

func (v *skillVerdicts) ok(rule string, seq int) {
	if _, has := v.seen[rule]; !has {
		v.seen[rule] = seq
	}
}

func (v *skillVerdicts) fail(rule string, seq int, what, want, got string) {
	v.failed[rule] = true
	v.seen[rule] = seq
	v.e.Fail(rule, seq, what, want, got)
}

// close passes each rule seen and not failed, and skips the rest with why.
func (v *skillVerdicts) close(why map[string]string) {
	for _, r := range skillsRules {
		seq, seen := v.seen[r]
		switch {
		case v.failed[r]:
		case seen:
			v.e.Pass(r, seq)
		case why[r] != "":
			v.e.Skip(r, why[r])
		default:
			v.e.Skip(r, "nothing the server served exercised it")
		}
	}
}

func skills(e *scenario.Env) error {
	s, err := ensure(e)
	if err != nil {
		return err
	}
	if !s.modern {
		skipAll(e, s.notModern(e), skillsRules...)
		return nil
	}
	exts, _ := s.caps["extensions"].(map[string]any)
	decl, declared := exts[skillsExt].(map[string]any)
	if !declared {
		skipAll(e, "the server does not declare the extension "+skillsExt, skillsRules...)
		return nil
	}
	v := &skillVerdicts{e: e, failed: map[string]bool{}, seen: map[string]int{}}
	why := map[string]string{}
	if s.has("resources") {
		v.ok("MCP-SKILLS-2", s.initSeq)
	} else {
		v.fail("MCP-SKILLS-2", s.initSeq, "the server declares "+skillsExt+" but not the resources capability", "capabilities.resources", show(s.caps))
	}
	entries, err := listSkills(e, s, v)
	if err != nil {
		return err
	}
	if err := getSkills(e, s, v, entries); err != nil {
		return err
	}
	names := map[string]int{}
	budget := skillsBudget
	for _, en := range entries {
		if err := judgeEntry(e, s, v, en, names, &budget); err != nil {
			return err
		}
	}
	if err := skillResourcesListed(e, s, v, entries); err != nil {
		return err
	}
	why["MCP-SKILLS-20"] = "the server lists no skill's SKILL.md in resources/list (it need not: skills/list is the listing of skills)"
	if decl["directoryRead"] == true {
		if err := readDirectories(e, s, v, entries); err != nil {
			return err
		}
	} else {
		for _, r := range []string{"MCP-SKILLS-3", "MCP-SKILLS-13", "MCP-SKILLS-14"} {
			why[r] = "the server does not declare directoryRead"
		}
	}
	why["MCP-SKILLS-5"] = "the server listed no skill"
	v.close(why)
	return nil
}

// listedSkill is one entry and the line it arrived on.
type listedSkill struct {
	entry map[string]any
	seq   int
}

// judgeCacheable judges a skills/list or skills/get result's resultType,
// ttlMs and cacheScope (MCP-SKILLS-4).
func judgeCacheable(v *skillVerdicts, in *peer.Inbound, method string) {
	res, _ := field(in, "/result").(map[string]any)
	_, ttl := number(res["ttlMs"])
	_, scope := res["cacheScope"].(string)
	if res["resultType"] != "complete" || !ttl || !scope {
		v.fail("MCP-SKILLS-4", in.Seq, "the "+method+" result lacks resultType \"complete\", a numeric ttlMs or a cacheScope",
			"resultType \"complete\", ttlMs and cacheScope", string(in.Raw))
		return
	}
	v.ok("MCP-SKILLS-4", in.Seq)
}

// implemented judges MCP-SKILLS-1 on an answer of skills/list or
// skills/get: -32601 says the method is missing.
func implemented(v *skillVerdicts, in *peer.Inbound, method string) bool {
	if c, ok := errorCode(in); ok && c == -32601 {
		v.fail("MCP-SKILLS-1", in.Seq, method+" is answered -32601 by a server declaring "+skillsExt, "a "+method+" result", string(in.Raw))
		return false
	}
	v.ok("MCP-SKILLS-1", in.Seq)
	return true
}

// pages walks the pages of a paginated method of the extension, at most
// 20, following nextCursor: each answer goes to each with its result
// (nil: not a result object), and the walk ends where each returns false
// or a result names no next page.
func pages(e *scenario.Env, s *session, method string, params map[string]any, each func(in *peer.Inbound, res map[string]any) bool) error {
	p := maps.Clone(params)
	for range 20 {
		in, err := s.call(e, method, p)
		if err != nil {
			return err
		}
		res, _ := field(in, "/result").(map[string]any)
		if !each(in, res) || res == nil || res["nextCursor"] == nil {
			return nil
		}
		p = maps.Clone(params)
		p["cursor"] = res["nextCursor"]
	}
	return nil
}

func listSkills(e *scenario.Env, s *session, v *skillVerdicts) ([]listedSkill, error) {
	var out []listedSkill
	err := pages(e, s, "skills/list", map[string]any{}, func(in *peer.Inbound, res map[string]any) bool {
		if !implemented(v, in, "skills/list") || res == nil {
			return false
		}
		judgeCacheable(v, in, "skills/list")
		list, _ := res["skills"].([]any)
		for _, it := range list {
			m, _ := it.(map[string]any)
			out = append(out, listedSkill{m, in.Seq})
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func getSkills(e *scenario.Env, s *session, v *skillVerdicts, entries []listedSkill) error {
	for i, en := range entries {
		uri, _ := en.entry["uri"].(string)
		if i >= 10 || uri == "" {
			break
		}
		in, err := s.call(e, "skills/get", map[string]any{"uri": uri})
		if err != nil {
			return err
		}
		if !implemented(v, in, "skills/get") {
			return nil
		}
		res, isRes := field(in, "/result").(map[string]any)
		if isRes && res["nextCursor"] != nil {
			v.fail("MCP-SKILLS-11", in.Seq, "a skills/get result carries a nextCursor", "no pagination cursor", string(in.Raw))
		} else if !isRes || !reflect.DeepEqual(normalize(res["skill"]), normalize(en.entry)) {
			// The skill may have changed, or gone, since it was
			// listed: judged against the listing as it is now.
			now, listed, err := listedNow(e, s, uri)
			if err != nil {
				return err
			}
			switch {
			case !listed:
				// No longer served as listed: nothing to compare.
			case !isRes:
				v.fail("MCP-SKILLS-11", in.Seq, "skills/get of a listed skill, "+uri+", was refused", "its entry", string(in.Raw))
			case !reflect.DeepEqual(normalize(res["skill"]), normalize(now.entry)):
				v.fail("MCP-SKILLS-11", in.Seq, "skills/get of "+uri+" answers another entry than skills/list, before it (line "+strconv.Itoa(en.seq)+") and after it (line "+strconv.Itoa(now.seq)+")",
					show(now.entry), show(res["skill"]))
			default:
				v.ok("MCP-SKILLS-11", in.Seq)
			}
		} else {
			v.ok("MCP-SKILLS-11", in.Seq)
		}
		if !isRes {
			continue
		}
		judgeCacheable(v, in, "skills/get")
	}
	// A URI no server serves: under the first listed skill's prefix, so
	// it is of a scheme the server uses.
	unknown := "skill://wirecheck-no-such/skill/SKILL.md"
	if len(entries) > 0 {
		if uri, _ := entries[0].entry["uri"].(string); strings.HasSuffix(uri, "/SKILL.md") {
			unknown = strings.TrimSuffix(uri, "SKILL.md") + "wirecheck-no-such-skill/SKILL.md"
		}
	}
	in, err := s.call(e, "skills/get", map[string]any{"uri": unknown})
	if err != nil {
		return err
	}
	if !implemented(v, in, "skills/get") {
		return nil
	}
	if c, ok := errorCode(in); ok && c == -32602 {
		v.ok("MCP-SKILLS-12", in.Seq)
	} else {
		v.fail("MCP-SKILLS-12", in.Seq, "skills/get of a URI that names no skill ("+unknown+") was not answered -32602", "error -32602 (Invalid params)", string(in.Raw))
	}
	return nil
}

// listedNow lists the skills again, judging nothing, for the entry of
// uri as the server lists it now (false: no longer listed). A server's
// skills may change between two reads (a file added, a skill removed):
// what is compared is a view taken after the one in question.
func listedNow(e *scenario.Env, s *session, uri string) (listedSkill, bool, error) {
	var now listedSkill
	found := false
	err := pages(e, s, "skills/list", map[string]any{}, func(in *peer.Inbound, res map[string]any) bool {
		list, _ := res["skills"].([]any)
		for _, it := range list {
			if m, _ := it.(map[string]any); m != nil && m["uri"] == uri {
				now, found = listedSkill{m, in.Seq}, true
				return false
			}
		}
		return true
	})
	if err != nil {
		return listedSkill{}, false, err
	}
	return now, found, nil
}

// skillName is the Agent Skills specification's name field: 1 to 64
// lowercase letters, digits and hyphens, no hyphen first, last or twice
// in a row.
var skillName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

var skillDigest = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// regName is RFC 3986's reg-name: unreserved characters, sub-delims and
// percent-encoded octets.
var regName = regexp.MustCompile(`^(?:[A-Za-z0-9._~!$&'()*+,;=-]|%[0-9A-Fa-f]{2})*$`)

// reverseDomain is a _meta key's reverse-domain prefix (com.example/):
// any namespace is taken for the skills one, since a skill resource may
// carry keys another specification defines.
var reverseDomain = regexp.MustCompile(`^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+/`)

// judgeMeta judges the _meta keys of a skill resource (MCP-SKILLS-21).
func judgeMeta(v *skillVerdicts, seq int, uri string, meta any) {
	m, _ := meta.(map[string]any)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !reverseDomain.MatchString(k) {
			v.fail("MCP-SKILLS-21", seq, "the skill resource "+uri+" carries a _meta key without a reverse-domain prefix", "io.modelcontextprotocol.skills/…", strconv.Quote(k))
			return
		}
	}
	v.ok("MCP-SKILLS-21", seq)
}

// skillResourcesListed judges the skill resources resources/list shows:
// a listed skill's SKILL.md named and described from its frontmatter
// (MCP-SKILLS-20), and every skill file's _meta keys (MCP-SKILLS-21).
func skillResourcesListed(e *scenario.Env, s *session, v *skillVerdicts, entries []listedSkill) error {
	if !s.has("resources") {
		return nil
	}
	fronts := map[string]map[string]any{}
	files := map[string]bool{}
	for _, en := range entries {
		uri, _ := en.entry["uri"].(string)
		front, _ := en.entry["frontmatter"].(map[string]any)
		fronts[uri] = front
		list, _ := en.entry["resources"].([]any)
		for _, it := range list {
			r, _ := it.(map[string]any)
			if ru, _ := r["uri"].(string); ru != "" {
				files[ru] = true
			}
		}
	}
	return pages(e, s, "resources/list", map[string]any{}, func(in *peer.Inbound, res map[string]any) bool {
		list, _ := res["resources"].([]any)
		for _, it := range list {
			r, _ := it.(map[string]any)
			ru, _ := r["uri"].(string)
			if front, isSkill := fronts[ru]; isSkill {
				for _, f := range []string{"name", "description"} {
					if want, _ := front[f].(string); r[f] != want {
						v.fail("MCP-SKILLS-20", in.Seq, "resources/list shows the SKILL.md "+ru+" with a "+f+" other than its frontmatter's", strconv.Quote(want), show(r[f]))
					}
				}
				v.ok("MCP-SKILLS-20", in.Seq)
			}
			if _, isSkill := fronts[ru]; (isSkill || files[ru]) && r["_meta"] != nil {
				judgeMeta(v, in.Seq, ru, r["_meta"])
			}
		}
		return true
	})
}

// skillRoot is an entry's skill directory: its uri without /SKILL.md.
func skillRoot(uri string) (string, bool) {
	return strings.CutSuffix(uri, "/SKILL.md")
}

func judgeEntry(e *scenario.Env, s *session, v *skillVerdicts, l listedSkill, names map[string]int, budget *int) error {
	en, seq := l.entry, l.seq
	uri, _ := en["uri"].(string)
	front, _ := en["frontmatter"].(map[string]any)
	name, _ := front["name"].(string)
	_, hasDesc := front["description"].(string)
	res, hasRes := en["resources"]
	list, isList := res.([]any)
	if uri == "" || name == "" || !hasDesc || !hasRes || !(isList || res == "dynamic") {
		v.fail("MCP-SKILLS-5", seq, "a skill entry lacks uri, frontmatter name or description, or resources as an array or \"dynamic\"",
			"uri, frontmatter.name, frontmatter.description and resources", show(en))
		if uri == "" || name == "" {
			return nil // nothing else of it can be judged
		}
	} else {
		v.ok("MCP-SKILLS-5", seq)
	}
	if rest, isSkill := strings.CutPrefix(uri, "skill://"); isSkill {
		v.ok("MCP-SKILLS-18", seq)
		authority, _, _ := strings.Cut(rest, "/")
		if regName.MatchString(authority) {
			v.ok("MCP-SKILLS-19", seq)
		} else {
			v.fail("MCP-SKILLS-19", seq, "the first segment of "+uri+", its URI authority, is no RFC 3986 reg-name", "unreserved characters, sub-delims and %XX escapes only", strconv.Quote(authority))
		}
	} else {
		v.fail("MCP-SKILLS-18", seq, "a skill is served under another scheme than skill://", "skill://<skill-path>/SKILL.md", uri)
	}
	root, isSkillMD := skillRoot(uri)
	last := root[strings.LastIndex(root, "/")+1:]
	if !isSkillMD || last != name {
		v.fail("MCP-SKILLS-6", seq, "the entry's uri does not end in <name>/SKILL.md for its frontmatter name "+strconv.Quote(name), "…/"+name+"/SKILL.md", uri)
	} else {
		v.ok("MCP-SKILLS-6", seq)
	}
	if len(name) > 64 || !skillName.MatchString(name) {
		v.fail("MCP-SKILLS-7", seq, "the skill name "+strconv.Quote(name)+" breaks the Agent Skills naming rules",
			"1-64 lowercase letters, digits and single hyphens, no hyphen first or last", name)
	} else {
		v.ok("MCP-SKILLS-7", seq)
	}
	if prev, dup := names[name]; dup {
		v.fail("MCP-SKILLS-17", seq, "two listed skills share the name "+strconv.Quote(name)+" (the first on line "+strconv.Itoa(prev)+")", "unique names", uri)
	} else {
		names[name] = seq
		v.ok("MCP-SKILLS-17", seq)
	}
	if isList {
		judgeManifest(v, seq, uri, root, list)
		if err := verifyFiles(e, s, v, seq, list, budget); err != nil {
			return err
		}
	}
	return judgeFrontmatter(e, s, v, uri, front)
}

// judgeManifest judges a resources array: complete and within the skill
// (MCP-SKILLS-8), sizes and digests well formed (MCP-SKILLS-9), within
// the limits (MCP-SKILLS-16).
func judgeManifest(v *skillVerdicts, seq int, uri, root string, list []any) {
	seen := map[string]bool{}
	total := 0.0
	hasSkillMD := false
	for _, it := range list {
		r, _ := it.(map[string]any)
		ru, _ := r["uri"].(string)
		switch {
		case seen[ru]:
			v.fail("MCP-SKILLS-8", seq, "the manifest of "+uri+" lists "+ru+" twice", "each file once", show(list))
		case ru != uri && !strings.HasPrefix(ru, root+"/"):
			v.fail("MCP-SKILLS-8", seq, "the manifest of "+uri+" lists a file outside the skill's directory", root+"/…", ru)
		}
		seen[ru] = true
		hasSkillMD = hasSkillMD || ru == uri
		size, isNum := number(r["size"])
		d, _ := r["digest"].(string)
		if !isNum || size < 0 || !skillDigest.MatchString(d) {
			v.fail("MCP-SKILLS-9", seq, "a manifest entry of "+uri+" lacks a size or a digest sha256:<64 lowercase hex>", "size and sha256:{hex}", show(r))
		}
		total += size
	}
	if !hasSkillMD {
		v.fail("MCP-SKILLS-8", seq, "the manifest of "+uri+" has no entry for its SKILL.md", "an entry whose uri is "+uri, show(list))
	} else {
		v.ok("MCP-SKILLS-8", seq)
	}
	if len(list) > 512 || total > 16<<20 {
		v.fail("MCP-SKILLS-16", seq, fmt.Sprintf("%s has %d files of %.0f bytes in all", uri, len(list), total), "at most 512 files and 16 MiB", show(len(list)))
	} else {
		v.ok("MCP-SKILLS-16", seq)
	}
}

// verifyFiles reads a manifest's files and compares their bytes with the
// size and digest listed (MCP-SKILLS-9).
func verifyFiles(e *scenario.Env, s *session, v *skillVerdicts, seq int, list []any, budget *int) error {
	for _, it := range list {
		r, _ := it.(map[string]any)
		ru, _ := r["uri"].(string)
		size, _ := number(r["size"])
		d, _ := r["digest"].(string)
		if *budget <= 0 || ru == "" {
			return nil
		}
		*budget--
		in, err := s.call(e, "resources/read", map[string]any{"uri": ru})
		if err != nil {
			return err
		}
		raw, ok := readBytes(in)
		if !ok {
			v.fail("MCP-SKILLS-9", in.Seq, "a file the skill's manifest lists, "+ru+", could not be read", "its contents", string(in.Raw))
			continue
		}
		sum := sha256.Sum256(raw)
		got := "sha256:" + hex.EncodeToString(sum[:])
		if float64(len(raw)) != size || got != d {
			v.fail("MCP-SKILLS-9", in.Seq, "the bytes of "+ru+" do not match its manifest entry (line "+strconv.Itoa(seq)+")",
				fmt.Sprintf("%.0f bytes, %s", size, d), fmt.Sprintf("%d bytes, %s", len(raw), got))
			continue
		}
		v.ok("MCP-SKILLS-9", in.Seq)
	}
	return nil
}

// readBytes is the raw content of a resources/read answer's first
// contents item: its text's UTF-8 bytes or its blob decoded.
func readBytes(in *peer.Inbound) ([]byte, bool) {
	c, _ := field(in, "/result/contents/0").(map[string]any)
	if t, ok := c["text"].(string); ok {
		return []byte(t), true
	}
	if b, ok := c["blob"].(string); ok {
		raw, err := base64.StdEncoding.DecodeString(b)
		return raw, err == nil
	}
	return nil, false
}

// judgeFrontmatter reads SKILL.md, compares its frontmatter with the
// entry's (MCP-SKILLS-10) and judges its mimeType (MCP-SKILLS-15).
func judgeFrontmatter(e *scenario.Env, s *session, v *skillVerdicts, uri string, front map[string]any) error {
	in, err := s.call(e, "resources/read", map[string]any{"uri": uri})
	if err != nil {
		return err
	}
	raw, ok := readBytes(in)
	if !ok {
		v.fail("MCP-SKILLS-10", in.Seq, "the SKILL.md of a listed skill could not be read", "its contents", string(in.Raw))
		return nil
	}
	judgeMeta(v, in.Seq, uri, field(in, "/result/contents/0/_meta"))
	if mt, _ := field(in, "/result/contents/0/mimeType").(string); mt == "text/markdown" {
		v.ok("MCP-SKILLS-15", in.Seq)
	} else {
		v.fail("MCP-SKILLS-15", in.Seq, uri+" is not served as text/markdown", "text/markdown", strconv.Quote(mt))
	}
	fm, err := frontmatter(string(raw))
	if err != nil {
		v.fail("MCP-SKILLS-10", in.Seq, "the SKILL.md at "+uri+" has no YAML frontmatter to compare: "+err.Error(), show(front), scenario.Show(string(raw), 200))
		return nil
	}
	if !reflect.DeepEqual(normalize(fm), normalize(front)) {
		v.fail("MCP-SKILLS-10", in.Seq, "the entry's frontmatter differs from the frontmatter of "+uri, show(fm), show(front))
		return nil
	}
	v.ok("MCP-SKILLS-10", in.Seq)
	return nil
}

// frontmatter parses the YAML between a SKILL.md's opening --- line and
// the next --- line.
func frontmatter(md string) (map[string]any, error) {
	md = strings.ReplaceAll(md, "\r\n", "\n")
	rest, ok := strings.CutPrefix(md, "---\n")
	if !ok {
		return nil, fmt.Errorf("it does not begin with ---")
	}
	end := strings.Index(rest, "\n---")
	if end < 0 {
		return nil, fmt.Errorf("its frontmatter is not closed by ---")
	}
	var m map[string]any
	if err := yaml.Unmarshal([]byte(rest[:end+1]), &m); err != nil {
		return nil, err
	}
	return m, nil
}

// normalize gives a value the shape JSON decoding gives it, so that YAML
// and JSON values compare.
func normalize(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// readDirectories reads each listed skill's root directory and checks it
// against the manifest (MCP-SKILLS-3, MCP-SKILLS-14), then a file and a
// path that does not exist as directories (MCP-SKILLS-13).
func readDirectories(e *scenario.Env, s *session, v *skillVerdicts, entries []listedSkill) error {
	var file string
	for i, l := range entries {
		uri, _ := l.entry["uri"].(string)
		root, ok := skillRoot(uri)
		list, isList := l.entry["resources"].([]any)
		if i >= 10 || !ok || !isList {
			continue
		}
		file = uri
		children, in, err := readDirectory(e, s, root)
		if err != nil {
			return err
		}
		if c, isErr := errorCode(in); isErr && c == -32601 {
			v.fail("MCP-SKILLS-3", in.Seq, "resources/directory/read is answered -32601 by a server declaring directoryRead", "a result", string(in.Raw))
			return nil
		}
		v.ok("MCP-SKILLS-3", in.Seq)
		if children == nil || missingChildren(root, list, children) != "" {
			// The skill may have changed since it was listed: its
			// manifest got now, then the directory read again.
			g, err := s.call(e, "skills/get", map[string]any{"uri": uri})
			if err != nil {
				return err
			}
			fresh, isList := field(g, "/result/skill/resources").([]any)
			if !isList {
				continue // gone, or dynamic now: nothing to compare
			}
			list = fresh
			if children, in, err = readDirectory(e, s, root); err != nil {
				return err
			}
		}
		if children == nil {
			v.fail("MCP-SKILLS-14", in.Seq, "the skill directory "+root+" could not be read", "its direct children", string(in.Raw))
			continue
		}
		if miss := missingChildren(root, list, children); miss != "" {
			v.fail("MCP-SKILLS-14", in.Seq, "reading the directory "+root+" leaves out "+miss+", a direct child by the skill's manifest", "every direct child, subdirectories as inode/directory", show(children))
			continue
		}
		v.ok("MCP-SKILLS-14", in.Seq)
	}
	for _, u := range []string{file, "skill://wirecheck-no-such-directory/nowhere"} {
		if u == "" {
			continue
		}
		in, err := s.call(e, "resources/directory/read", map[string]any{"uri": u})
		if err != nil {
			return err
		}
		if c, ok := errorCode(in); ok && c == -32602 {
			v.ok("MCP-SKILLS-13", in.Seq)
		} else {
			v.fail("MCP-SKILLS-13", in.Seq, "resources/directory/read of "+u+", no directory, was not answered -32602", "error -32602 (Invalid params)", string(in.Raw))
		}
	}
	return nil
}

// readDirectory pages through one directory: its children by URI (their
// mimeType), nil if the server refused, and the first answer.
func readDirectory(e *scenario.Env, s *session, uri string) (map[string]string, *peer.Inbound, error) {
	var first *peer.Inbound
	out := map[string]string{}
	err := pages(e, s, "resources/directory/read", map[string]any{"uri": uri}, func(in *peer.Inbound, res map[string]any) bool {
		if first == nil {
			first = in
		}
		if res == nil {
			out = nil
			return false
		}
		list, _ := res["resources"].([]any)
		for _, it := range list {
			r, _ := it.(map[string]any)
			u, _ := r["uri"].(string)
			mt, _ := r["mimeType"].(string)
			out[u] = mt
		}
		return true
	})
	if err != nil {
		return nil, nil, err
	}
	return out, first, nil
}

// missingChildren names the first direct child of root, by the manifest,
// that a directory read left out ("" if none).
func missingChildren(root string, list []any, children map[string]string) string {
	for _, it := range list {
		r, _ := it.(map[string]any)
		ru, _ := r["uri"].(string)
		rest, under := strings.CutPrefix(ru, root+"/")
		if !under {
			continue
		}
		if head, _, deeper := strings.Cut(rest, "/"); deeper {
			if children[root+"/"+head] != "inode/directory" {
				return root + "/" + head + " (a directory)"
			}
		} else if _, has := children[ru]; !has {
			return ru
		}
	}
	return ""
}
