package catalogdiff

import (
	"fmt"
	"slices"
	"strings"

	"github.com/askback/askback/internal/catalog"
)

// A server may offer more to a client that declares more (a tool that
// asks by URL only to a client that takes URL elicitation) or speaks a
// later protocol. Two catalogs read by clients that differ in what they
// declared, or on different protocol versions, are compared as they are,
// with a note that says so; and what only the old catalog has (a tool, a
// prompt, a resource, a capability) is not called breaking when the new
// catalog's client declared less than the old one's (a capability, or a
// mode of one, the old one declared and it did not; an older protocol):
// the server may well still offer it, to a client like the old one. It is
// then to review, under RuleClientDeclaredLess, and its message says what
// the client lacked. What the new catalog adds is safe either way.

// clients compares the clients that read old and new: whether they
// differ, and what the new one lacked of the old one's (its capabilities,
// and "protocol NEW rather than OLD" for an older protocol).
type clients struct {
	differ bool
	less   []string
}

// lacked words what the new catalog's client lacked.
func (c clients) lacked() string { return strings.Join(c.less, ", ") }

// compareClients compares the clients that read old and new.
func compareClients(old, new *catalog.Catalog) clients {
	var c clients
	o, n := declaredSet(old.ClientCapabilities), declaredSet(new.ClientCapabilities)
	// What the new client lacks is said once a capability: a capability
	// it lacks whole is one item with the modes the old one declared (not
	// one for it and one for each mode), a mode it lacks of one it
	// declared is "no NAME (MODE, …)".
	lackedModes := map[string][]string{}
	var lacked []string
	for _, k := range unionKeys(o, n) {
		if o[k] != n[k] {
			c.differ = true
		}
		if n[k] {
			continue
		}
		name, mode, isMode := strings.Cut(k, " (")
		if !isMode {
			lacked = append(lacked, name)
			continue
		}
		if _, ok := lackedModes[name]; !ok && n[name] {
			lacked = append(lacked, name)
		}
		lackedModes[name] = append(lackedModes[name], strings.TrimSuffix(mode, ")"))
	}
	for _, name := range lacked {
		modes := strings.Join(lackedModes[name], ", ")
		switch {
		case n[name]:
			c.less = append(c.less, fmt.Sprintf("no %s (%s)", name, modes))
		case modes != "":
			c.less = append(c.less, fmt.Sprintf("no %s at all (the old one's: %s)", name, modes))
		default:
			c.less = append(c.less, "no "+name)
		}
	}
	if old.ProtocolVersion != new.ProtocolVersion {
		c.differ = true
		// Protocol versions are dates: the smaller is the older.
		if new.ProtocolVersion < old.ProtocolVersion {
			c.less = append(c.less, fmt.Sprintf("protocol %s rather than %s", orNone(new.ProtocolVersion), old.ProtocolVersion))
		}
	}
	return c
}

// declaredSet is a catalog's clientCapabilities as a set of capabilities
// and their modes: "elicitation (form, url)" is elicitation,
// "elicitation (form)" and "elicitation (url)". Elicitation declared
// without a mode is form mode, as MCP reads it.
func declaredSet(declared []string) map[string]bool {
	set := map[string]bool{}
	for _, d := range declared {
		name, modes, _ := strings.Cut(d, " (")
		set[name] = true
		for m := range strings.SplitSeq(strings.TrimSuffix(modes, ")"), ",") {
			if m = strings.TrimSpace(m); m != "" {
				set[name+" ("+m+")"] = true
			}
		}
		if name == "elicitation" && modes == "" {
			set["elicitation (form)"] = true
		}
	}
	return set
}

// explainable are the rules of what only the old catalog has, which a
// server may leave out for a client that declares less.
func explainable(r Rule) bool {
	return slices.Contains([]Rule{RuleToolRemoved, RuleToolRenamed, RulePromptRemoved, RulePromptRenamed,
		RuleResourceRemoved, RuleResourceRenamed, RuleCapabilityRemoved}, r)
}

// forClients re-classifies the changes of d that the new catalog's
// client explains by declaring less than the old one's.
func (d *differ) forClients(c clients) {
	if len(c.less) == 0 {
		return
	}
	why := fmt.Sprintf(" from a catalog whose client declared less (%s): due to the client's capabilities?", c.lacked())
	for i, ch := range d.changes {
		if ch.Removed && explainable(ch.Rule) {
			d.changes[i].Rule = RuleClientDeclaredLess
			d.changes[i].Message += why
		}
	}
}

// notes are what the report says before its changes: that the clients
// that read the catalogs differ, and how.
func (c clients) notes(old, new *catalog.Catalog) []string {
	if !c.differ {
		return nil
	}
	client := func(cat *catalog.Catalog) string {
		declared := "nothing"
		if len(cat.ClientCapabilities) > 0 {
			declared = strings.Join(cat.ClientCapabilities, ", ")
		}
		return fmt.Sprintf("%s on protocol %s", declared, orNone(cat.ProtocolVersion))
	}
	out := []string{fmt.Sprintf("the catalogs were read by clients that declared different things (old: %s; new: %s): a server may offer more to a client that declares more",
		client(old), client(new))}
	if len(c.less) > 0 {
		out = append(out, fmt.Sprintf("the new catalog's client declared less (%s): what only the old catalog has is not comparable, to review rather than breaking [%s]",
			c.lacked(), RuleClientDeclaredLess.ID))
	}
	return out
}
