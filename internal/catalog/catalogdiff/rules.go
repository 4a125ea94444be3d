package catalogdiff

import "fmt"

// Class is what a change means for a server's callers, from the least to
// the most serious.
type Class int

// The classes of change.
const (
	// Safe: callers written for the old catalog keep working (a tool or an
	// optional input added, a bound loosened).
	Safe Class = iota
	// Review: what the model is told changed (descriptions, titles,
	// instructions, annotations): a person should read it, since a
	// description is where an attack on the model hides, and a tool that
	// turns destructive after users approved it is a rug pull.
	Review
	// Breaking: a caller written for the old catalog fails (a tool, an
	// argument or a resource removed or renamed, a required input added,
	// an input narrowed, an output changed, a capability dropped).
	Breaking
)

func (c Class) String() string {
	switch c {
	case Safe:
		return "safe"
	case Review:
		return "review"
	case Breaking:
		return "breaking"
	}
	return fmt.Sprintf("Class(%d)", int(c))
}

// MarshalText writes the class's name in JSON.
func (c Class) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// Threshold is the least serious class that fails a diff (--fail-on);
// FailNone fails nothing.
type Threshold int

// The thresholds of --fail-on.
const (
	FailAny      = Threshold(Safe)
	FailReview   = Threshold(Review)
	FailBreaking = Threshold(Breaking)
	FailNone     = Threshold(Breaking + 1)
)

// ParseThreshold reads --fail-on: breaking, review, any or none.
func ParseThreshold(s string) (Threshold, error) {
	switch s {
	case "breaking":
		return FailBreaking, nil
	case "review":
		return FailReview, nil
	case "any":
		return FailAny, nil
	case "none":
		return FailNone, nil
	}
	return 0, fmt.Errorf("%q: use breaking, review, any or none", s)
}

func (t Threshold) String() string {
	switch t {
	case FailAny:
		return "any"
	case FailReview:
		return "review"
	case FailBreaking:
		return "breaking"
	}
	return "none"
}

// Fails reports whether a change of class c fails a diff at t.
func (t Threshold) Fails(c Class) bool { return int(c) >= int(t) }

// Rule is one kind of change: a stable id (what JSON and SARIF carry), its
// class and what it means. It is a pointer to what it says, the size of
// one word: a report holds one for each of its changes (hundreds of
// thousands in a dense diff of large catalogs). Two rules are equal when
// they are the same rule.
type Rule struct{ *RuleInfo }

// RuleInfo is what a [Rule] says.
type RuleInfo struct {
	ID    string
	Class Class
	Short string // what changed, in a line
	Help  string // why it matters and what to do
	// Severity is the security severity code scanning shows ("" none).
	Severity string
}

// The rules, by class.
var (
	// Breaking.
	RuleToolRemoved        = Rule{&RuleInfo{"tool-removed", Breaking, "A tool was removed", "Callers of the tool fail. Keep it (deprecated in its description) until callers moved, or bump the server's major version.", ""}}
	RuleToolRenamed        = Rule{&RuleInfo{"tool-renamed", Breaking, "A tool was removed and one with the same schemas added: renamed?", "Callers still use the old name. Keep the old name as an alias until they moved.", ""}}
	RulePromptRemoved      = Rule{&RuleInfo{"prompt-removed", Breaking, "A prompt was removed", "Clients that offer the prompt fail to get it.", ""}}
	RulePromptRenamed      = Rule{&RuleInfo{"prompt-renamed", Breaking, "A prompt was removed and one with the same arguments added: renamed?", "Clients still use the old name.", ""}}
	RuleArgumentRemoved    = Rule{&RuleInfo{"prompt-argument-removed", Breaking, "A prompt's argument was removed", "Clients that send it are refused or ignored.", ""}}
	RuleArgumentRequired   = Rule{&RuleInfo{"prompt-argument-required", Breaking, "A prompt's argument is now required, or a required one was added", "Clients that do not send it fail.", ""}}
	RuleResourceRemoved    = Rule{&RuleInfo{"resource-removed", Breaking, "A resource or resource template was removed", "Readers of its URI fail.", ""}}
	RuleResourceRenamed    = Rule{&RuleInfo{"resource-renamed", Breaking, "A resource's URI changed (one removed, one with the same name added): moved?", "Readers of the old URI fail.", ""}}
	RuleMIMETypeChanged    = Rule{&RuleInfo{"resource-mime-type-changed", Breaking, "A resource's MIME type changed", "Readers that parse the old type fail.", ""}}
	RuleInputRemoved       = Rule{&RuleInfo{"input-removed", Breaking, "An input property was removed", "Callers that send it are refused (or it is silently ignored).", ""}}
	RuleInputRenamed       = Rule{&RuleInfo{"input-renamed", Breaking, "An input property was removed and one with the same schema added: renamed?", "Callers send the old name.", ""}}
	RuleInputRequired      = Rule{&RuleInfo{"input-required", Breaking, "An input is now required, or a required input was added", "Callers that do not send it are refused. Add it as optional with a default instead.", ""}}
	RuleInputTypeNarrowed  = Rule{&RuleInfo{"input-type-narrowed", Breaking, "An input's type changed or was narrowed", "Callers that send the old type are refused.", ""}}
	RuleInputEnumNarrowed  = Rule{&RuleInfo{"input-enum-narrowed", Breaking, "An input's allowed values were limited: a value removed, an enum or const added", "Callers that send a value no longer allowed are refused.", ""}}
	RuleInputBoundTighter  = Rule{&RuleInfo{"input-bound-tightened", Breaking, "An input's bound was tightened: minimum raised, maximum lowered, a length or count limited, a pattern or format added or changed", "Callers that send a value out of the new bound are refused.", ""}}
	RuleInputSchemaChanged = Rule{&RuleInfo{"input-schema-changed", Breaking, "An input schema changed in a way that may refuse what it took (anyOf, $ref, not, ...)", "Could not tell whether callers still pass: check by hand.", ""}}
	RuleOutputRemoved      = Rule{&RuleInfo{"output-removed", Breaking, "An output field (or the whole output schema) was removed", "Callers that read it find nothing.", ""}}
	RuleOutputChanged      = Rule{&RuleInfo{"output-changed", Breaking, "An output field changed: its type, its values widened, no longer always present", "Callers that read it as before may fail.", ""}}
	RuleTaskRequired       = Rule{&RuleInfo{"tool-task-required", Breaking, "A tool now must be run as a task (execution.taskSupport \"required\")", "Callers that call it directly, without a task, are refused. Keep it optional until callers moved.", ""}}
	RuleCapabilityRemoved  = Rule{&RuleInfo{"capability-removed", Breaking, "A capability the server declared is gone", "Clients that use it (list changes, subscriptions, logging, an extension) lose it.", ""}}

	// Review: what the model or the user is told.
	RuleDescriptionChanged  = Rule{&RuleInfo{"description-changed", Review, "A description the model reads changed", "Read the new text: a description is where instructions aimed at the model hide.", "5.0"}}
	RuleTitleChanged        = Rule{&RuleInfo{"title-changed", Review, "A title shown to users changed", "Check that it still names what the tool does.", ""}}
	RuleInstructionsChanged = Rule{&RuleInfo{"instructions-changed", Review, "The server's instructions to the model changed", "Read the new instructions: they steer every tool call of the model.", "5.0"}}
	RuleRugPull             = Rule{&RuleInfo{"annotation-rug-pull", Review, "A tool's annotations now allow more than users approved: no longer read-only, now destructive or reaching the open world", "Clients that approved the tool on its old hints are not asked again. Make it a new tool, or make sure clients ask again.", "8.0"}}
	RuleAnnotationChanged   = Rule{&RuleInfo{"annotation-changed", Review, "A tool's or resource's annotations changed", "Check that the hints still say what the tool does.", ""}}
	RuleIconChanged         = Rule{&RuleInfo{"icon-changed", Review, "An icon shown to users changed", "Check where the new icon comes from.", ""}}
	RuleServerInfoChanged   = Rule{&RuleInfo{"server-info-changed", Review, "The server's name, title, description or website changed", "Clients show it, and some name the server's tools after it.", ""}}
	RuleProtocolChanged     = Rule{&RuleInfo{"protocol-changed", Review, "The protocol version the server speaks changed", "Check that clients of the old version still connect.", ""}}
	RuleSchemaNoteChanged   = Rule{&RuleInfo{"schema-annotation-changed", Review, "A default, an example or another note in a schema changed", "The model fills inputs from these: check the new values.", ""}}
	RuleResourceInfoChanged = Rule{&RuleInfo{"resource-info-changed", Review, "A resource's name changed", "Clients show it.", ""}}

	// Safe.
	RuleToolAdded          = Rule{&RuleInfo{"tool-added", Safe, "A tool was added", "", ""}}
	RulePromptAdded        = Rule{&RuleInfo{"prompt-added", Safe, "A prompt was added", "", ""}}
	RuleResourceAdded      = Rule{&RuleInfo{"resource-added", Safe, "A resource or resource template was added", "", ""}}
	RuleInputAdded         = Rule{&RuleInfo{"input-added", Safe, "An optional input was added", "", ""}}
	RuleArgumentAdded      = Rule{&RuleInfo{"prompt-argument-added", Safe, "An optional prompt argument was added, or one is no longer required", "", ""}}
	RuleInputLoosened      = Rule{&RuleInfo{"input-loosened", Safe, "An input accepts more: a type widened, a value added, a bound loosened, no longer required", "", ""}}
	RuleOutputExtended     = Rule{&RuleInfo{"output-extended", Safe, "The output promises more: a field or an output schema added, values narrowed", "", ""}}
	RuleCapabilityAdded    = Rule{&RuleInfo{"capability-added", Safe, "A capability was added", "", ""}}
	RuleVersionChanged     = Rule{&RuleInfo{"server-version-changed", Safe, "The server's version changed", "", ""}}
	RuleExecutionChanged   = Rule{&RuleInfo{"tool-execution-changed", Review, "How a tool runs as a task changed (its execution member)", "Check that callers that run it directly, or as a task, still can.", ""}}
	RuleCapabilityOption   = Rule{&RuleInfo{"capability-changed", Review, "A capability's settings changed", "Check what clients of the old settings do.", ""}}
	RuleClientDeclaredLess = Rule{&RuleInfo{"client-declared-less", Review, "Something only the old catalog has (a tool, prompt, resource or capability) is missing from a catalog whose client declared less (a client capability, an older protocol)", "The server may offer it only to clients that declare more: save both catalogs with the same client (the same mcp-tester and --protocol) to compare the server alone.", ""}}
	RuleMemberChanged      = Rule{&RuleInfo{"member-changed", Review, "Another member the server sent of itself, a tool, a prompt or a resource changed (its _meta, a member of a later protocol)", "Check what clients make of it: some show it, or act on it.", ""}}
)

// Rules lists every rule, breaking first.
func Rules() []Rule {
	return []Rule{
		RuleToolRemoved, RuleToolRenamed, RulePromptRemoved, RulePromptRenamed, RuleArgumentRemoved, RuleArgumentRequired,
		RuleResourceRemoved, RuleResourceRenamed, RuleMIMETypeChanged, RuleInputRemoved, RuleInputRenamed, RuleInputRequired,
		RuleInputTypeNarrowed, RuleInputEnumNarrowed, RuleInputBoundTighter, RuleInputSchemaChanged, RuleOutputRemoved,
		RuleOutputChanged, RuleTaskRequired, RuleCapabilityRemoved,
		RuleDescriptionChanged, RuleTitleChanged, RuleInstructionsChanged, RuleRugPull, RuleAnnotationChanged, RuleIconChanged,
		RuleServerInfoChanged, RuleProtocolChanged, RuleSchemaNoteChanged, RuleResourceInfoChanged, RuleExecutionChanged, RuleCapabilityOption, RuleMemberChanged, RuleClientDeclaredLess,
		RuleToolAdded, RulePromptAdded, RuleResourceAdded, RuleInputAdded, RuleArgumentAdded, RuleInputLoosened,
		RuleOutputExtended, RuleCapabilityAdded, RuleVersionChanged,
	}
}
