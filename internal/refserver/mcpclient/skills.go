package mcpclient

import (
	"path"
	"regexp"
	"strings"
)

// The skills extension's host side (io.modelcontextprotocol/skills,
// SEP-2640), with the variants skills and skills-load and the faults
// skills-prefetch, skills-support-first and skills-directory-read: the reference client speaks
// 2026-07-28 and declares the extension.

const skillsExt = "io.modelcontextprotocol/skills"

// skillsOn reports whether the client takes part in the extension.
func (c *client) skillsOn() bool {
	return c.variant["skills"] || c.variant["skills-load"] || c.fault["skills-prefetch"] || c.fault["skills-support-first"] || c.fault["skills-directory-read"]
}

// useSkills lists the skills of a server that declares the extension and
// does with them what the variant or fault says: by default nothing more,
// as a host whose model asked for no skill.
func (c *client) useSkills() bool {
	ext, _ := c.serverCaps["extensions"].(map[string]any)
	if _, ok := ext[skillsExt]; !ok {
		return true
	}
	var entries []map[string]any
	cursor := ""
	for page := 0; page < 10; page++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		res, ok := c.call("skills/list", params)
		if !ok {
			return false
		}
		r, _ := res["result"].(map[string]any)
		list, _ := r["skills"].([]any)
		for _, e := range list {
			if m, ok := e.(map[string]any); ok {
				entries = append(entries, m)
			}
		}
		if cursor, _ = r["nextCursor"].(string); cursor == "" {
			break
		}
	}
	switch {
	case c.fault["skills-directory-read"]:
		// directoryRead undeclared or not, every skill's root is read.
		for _, e := range entries {
			uri, _ := e["uri"].(string)
			if _, ok := c.call("resources/directory/read", map[string]any{"uri": strings.TrimSuffix(uri, "/SKILL.md")}); !ok {
				return false
			}
		}
	case c.fault["skills-prefetch"]:
		for _, e := range entries {
			res, _ := e["resources"].([]any)
			for _, f := range res {
				m, _ := f.(map[string]any)
				if uri, ok := m["uri"].(string); ok {
					if _, ok := c.call("resources/read", map[string]any{"uri": uri}); !ok {
						return false
					}
				}
			}
		}
	case c.fault["skills-support-first"] && len(entries) > 0:
		// The first skill's supporting files, its SKILL.md never read.
		res, _ := entries[0]["resources"].([]any)
		for _, f := range res {
			m, _ := f.(map[string]any)
			if uri, ok := m["uri"].(string); ok && !strings.HasSuffix(uri, "/SKILL.md") {
				if _, ok := c.call("resources/read", map[string]any{"uri": uri}); !ok {
					return false
				}
			}
		}
	case c.variant["skills-load"] && len(entries) > 0:
		return c.loadSkill(entries[0])
	}
	return true
}

// mdLink finds the relative paths a SKILL.md names: a word with a slash
// and a file extension.
var mdLink = regexp.MustCompile(`\b[\w.-]+(?:/[\w.-]+)+\.\w+\b`)

// loadSkill loads one skill as a host whose model asked for it: its
// SKILL.md, then each supporting file it names (resolved against the
// skill's root) that the entry lists.
func (c *client) loadSkill(e map[string]any) bool {
	uri, _ := e["uri"].(string)
	res, ok := c.call("resources/read", map[string]any{"uri": uri})
	if !ok {
		return false
	}
	r, _ := res["result"].(map[string]any)
	contents, _ := r["contents"].([]any)
	listed := map[string]bool{}
	files, _ := e["resources"].([]any)
	for _, f := range files {
		m, _ := f.(map[string]any)
		if u, ok := m["uri"].(string); ok {
			listed[u] = true
		}
	}
	root := strings.TrimSuffix(uri, "/SKILL.md")
	for _, ct := range contents {
		m, _ := ct.(map[string]any)
		text, _ := m["text"].(string)
		for _, rel := range mdLink.FindAllString(text, -1) {
			u := root + "/" + path.Clean(rel)
			if !listed[u] {
				continue
			}
			if _, ok := c.call("resources/read", map[string]any{"uri": u}); !ok {
				return false
			}
		}
	}
	return true
}
