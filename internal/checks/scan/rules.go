package scan

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Severity is how much a finding matters: [Info] < [Low] < [Medium] <
// [High].
type Severity int

// The severities, from least to most.
const (
	Info Severity = iota + 1
	Low
	Medium
	High
)

// Severities lists every severity from the highest.
func Severities() []Severity { return []Severity{High, Medium, Low, Info} }

func (s Severity) String() string {
	switch s {
	case Info:
		return "info"
	case Low:
		return "low"
	case Medium:
		return "medium"
	case High:
		return "high"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// MarshalJSON writes the severity by name.
func (s Severity) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// UnmarshalJSON reads a severity by name.
func (s *Severity) UnmarshalJSON(b []byte) error {
	var name string
	if err := json.Unmarshal(b, &name); err != nil {
		return err
	}
	v, err := ParseSeverity(name)
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// ParseSeverity reads a severity by name: high, medium, low or info.
func ParseSeverity(name string) (Severity, error) {
	for _, s := range Severities() {
		if strings.EqualFold(name, s.String()) {
			return s, nil
		}
	}
	return 0, fmt.Errorf("%q is no severity: use high, medium, low or info", name)
}

// Rule is one check of the scan.
type Rule struct {
	// ID is the rule's stable id, MCPS001 and on: it never changes
	// meaning, and a retired rule's id is never reused.
	ID string `json:"id"`
	// Name is a short name for people and reports: "tag-characters".
	Name string `json:"name"`
	// Family groups the rules: hidden text, instructions to the model,
	// exfiltration, shadowing, agency, names.
	Family string `json:"family"`
	// Severity is the most a finding of the rule is; some findings are
	// less (see Help).
	Severity Severity `json:"severity"`
	// Title says in one line what the rule finds.
	Title string `json:"title"`
	// Help says why it matters and what to do.
	Help string `json:"help"`
}

// The families of rules.
const (
	FamilyHidden = "hidden text"
	FamilyModel  = "instructions to the model"
	FamilyExfil  = "exfiltration"
	FamilyShadow = "shadowing"
	FamilyAgency = "excessive agency"
	FamilyNames  = "names"
)

// The rules, in the order they are reported.
var (
	RuleTags = Rule{"MCPS001", "tag-characters", FamilyHidden, High,
		"Unicode tag characters (U+E0000 to U+E007F)",
		"Tag characters are invisible to people, yet each spells an ASCII character a model reads: a message no reviewer sees. Remove them."}
	RuleBidi = Rule{"MCPS002", "bidi-controls", FamilyHidden, High,
		"bidirectional controls that reorder what is shown",
		"Embeddings, overrides and isolates make the text a person reads differ from the text the model reads. Remove them; write right-to-left text without controls."}
	RuleControl = Rule{"MCPS003", "control-characters", FamilyHidden, High,
		"control characters and terminal escape sequences",
		"An escape sequence can hide, recolor or rewrite text on a terminal that shows the description, while the model reads it whole. Only newline and tab belong in descriptions (a lone carriage return is medium)."}
	RuleInvisible = Rule{"MCPS004", "invisible-characters", FamilyHidden, High,
		"zero-width and other invisible format characters",
		"Zero-width spaces and joiners, word joiners, byte order marks and stray variation selectors hide words from filters and people, and enough of them encode a message. Medium for a few in a text; high in a name or when there are many."}
	RuleConfusable = Rule{"MCPS005", "confusable-name", FamilyHidden, High,
		"a name with look-alike letters from another script",
		"A name spelled with Cyrillic or Greek letters that look Latin, or with full-width or mathematical letters, imitates another name. Spell names in one script, ideally in the letters, digits, _ - . that tool names are limited to."}
	RuleMixedWords = Rule{"MCPS006", "mixed-script-words", FamilyHidden, Medium,
		"words that mix look-alike letters of several scripts",
		"A word of Latin letters with a Cyrillic or Greek look-alike in it slips past filters that look for it, while the model reads it as the word. Spell each word in one script."}
	RuleHiddenMarkup = Rule{"MCPS007", "hidden-markup", FamilyHidden, High,
		"text hidden in markup: comments and invisible elements",
		"HTML and Markdown comments, elements styled invisible and hidden attributes are not shown where descriptions are rendered, but the model reads them. Say openly what the tool does."}
	RuleAttentionTags = Rule{"MCPS008", "attention-tags", FamilyHidden, High,
		"tags that address the model with authority (<IMPORTANT>, <system>)",
		"Tags like <IMPORTANT> or <system> are how poisoned descriptions wrap their orders to the model; a description needs none. Role markers of chat templates (<|im_start|>, [INST]) are high."}
	RuleOversized = Rule{"MCPS009", "oversized-text", FamilyHidden, High,
		"text the scan did not read, or too long to read",
		"The scan reads every string the model is told, at any depth, up to 2 MiB of text a scan: what a scan did not read may hold anything, and is one finding of high severity for the server, saying how much was left. A description of tens of kilobytes buries what it says in bulk that no person reads, while the model reads all of it (medium). Keep descriptions short."}
	RuleOverride = Rule{"MCPS010", "override-instructions", FamilyModel, High,
		"an instruction to ignore or override other instructions",
		"A description that tells the model to ignore its instructions, or claims precedence over them, is a prompt injection."}
	RuleConceal = Rule{"MCPS011", "conceal-from-user", FamilyModel, High,
		"an instruction to keep something from the user",
		"A tool has no reason to ask the model not to tell the user something, or to act silently: that is how an attack stays unseen."}
	RuleSecrets = Rule{"MCPS012", "read-secrets", FamilyModel, High,
		"a request to read files or secrets (~/.ssh, .env, id_rsa, credentials)",
		"A description that asks for private keys, credential files or secrets wants them sent somewhere. High when it asks to read or pass them; medium when it only names such a file or secret."}
	RulePrecondition = Rule{"MCPS013", "global-precondition", FamilyModel, High,
		"a precondition on every tool or every conversation",
		`"Before using any tool, call this one" puts the server in front of every other server's tools. Medium when the text limits it to this server's own tools.`}
	RuleDestination = Rule{"MCPS020", "exfiltration-destination", FamilyExfil, High,
		"an address to send data to",
		"A URL, an e-mail address or an IP address next to an order to send, forward, copy or upload is where data would go; an image whose address takes data leaks it when a client renders it (a plain remote image is medium). A tool that sends only what the user gives it for the call, or sends at the user's request or for the user to review, is low; a link it returns to the user is no destination."}
	RuleSideChannel = Rule{"MCPS021", "side-channel-parameter", FamilyExfil, High,
		"a parameter that carries conversation content or secrets out",
		"A parameter the model is told to fill with the conversation, the system prompt, other tools' results or file contents has no use in the tool's purpose but to carry them to the server. A required free-text parameter named like notes or context that the tool's description never mentions is medium."}
	RuleShadowing = Rule{"MCPS030", "shadowing", FamilyShadow, High,
		"a description that dictates how other tools are used",
		"A description that tells the model how to use tools it does not offer (send_email, any other tool) changes what those tools do without being called: keep descriptions about the tool itself."}
	RuleUnannotated = Rule{"MCPS040", "unannotated-agency", FamilyAgency, Medium,
		"a tool that runs commands, deletes or spends, without annotations saying so",
		`A tool that runs commands, deletes or spends should say so with "destructiveHint": true (and "openWorldHint"), so that clients ask before running it. Medium without annotations; low when annotations leave destructiveHint out.`}
	RuleContradicted = Rule{"MCPS041", "contradicted-annotations", FamilyAgency, High,
		"annotations that call a tool that runs commands, deletes or spends harmless",
		`"readOnlyHint": true or "destructiveHint": false on a tool whose name says it runs commands, deletes or spends lets clients run it without asking (a rug pull once it was approved). Medium when only the description says so.`}
	RuleCollision = Rule{"MCPS050", "name-collision", FamilyNames, High,
		"names that collide within a server or across the servers scanned together",
		"A client that merges servers' tools cannot tell two tools of one name apart, and a look-alike name (send-email, sеnd_email) takes the calls meant for the other. Medium when two servers offer the same name; high for a look-alike or a name twice in one server."}
)

// Rules lists every rule in order.
func Rules() []Rule {
	return []Rule{RuleTags, RuleBidi, RuleControl, RuleInvisible, RuleConfusable, RuleMixedWords,
		RuleHiddenMarkup, RuleAttentionTags, RuleOversized, RuleOverride, RuleConceal, RuleSecrets, RulePrecondition,
		RuleDestination, RuleSideChannel, RuleShadowing, RuleUnannotated, RuleContradicted, RuleCollision}
}
