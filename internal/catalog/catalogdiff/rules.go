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
// class and what it means.
type Rule struct {
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
	RuleToolRemoved        = Rule{"tool-removed", Breaking, "A tool was removed", "Callers of the tool fail. Keep it (deprecated in its description) until callers moved, or bump the server's major version.", ""}
	RuleToolRenamed        = Rule{"tool-renamed", Breaking, "A tool was removed and one with the same schemas added: renamed?", "Callers still use the old name. Keep the old name as an alias until they moved.", ""}
	RulePromptRemoved      = Rule{"prompt-removed", Breaking, "A prompt was removed", "Clients that offer the prompt fail to get it.", ""}
	RulePromptRenamed      = Rule{"prompt-renamed", Breaking, "A prompt was removed and one with the same arguments added: renamed?", "Clients still use the old name.", ""}
	RuleArgumentRemoved    = Rule{"prompt-argument-removed", Breaking, "A prompt's argument was removed", "Clients that send it are refused or ignored.", ""}
	RuleArgumentRequired   = Rule{"prompt-argument-required", Breaking, "A prompt's argument is now required, or a required one was added", "Clients that do not send it fail.", ""}
	RuleResourceRemoved    = Rule{"resource-removed", Breaking, "A resource or resource template was removed", "Readers of its URI fail.", ""}
	RuleResourceRenamed    = Rule{"resource-renamed", Breaking, "A resource's URI changed (one removed, one with the same name added): moved?", "Readers of the old URI fail.", ""}
	RuleMIMETypeChanged    = Rule{"resource-mime-type-changed", Breaking, "A resource's MIME type changed", "Readers that parse the old type fail.", ""}
	RuleInputRemoved       = Rule{"input-removed", Breaking, "An input property was removed", "Callers that send it are refused (or it is silently ignored).", ""}
	RuleInputRenamed       = Rule{"input-renamed", Breaking, "An input property was removed and one with the same schema added: renamed?", "Callers send the old name.", ""}
	RuleInputRequired      = Rule{"input-required", Breaking, "An input is now required, or a required input was added", "Callers that do not send it are refused. Add it as optional with a default instead.", ""}
	RuleInputTypeNarrowed  = Rule{"input-type-narrowed", Breaking, "An input's type changed or was narrowed", "Callers that send the old type are refused.", ""}
	RuleInputEnumNarrowed  = Rule{"input-enum-narrowed", Breaking, "An input's allowed values were limited: a value removed, an enum or const added", "Callers that send a value no longer allowed are refused.", ""}
	RuleInputBoundTighter  = Rule{"input-bound-tightened", Breaking, "An input's bound was tightened: minimum raised, maximum lowered, a length or count limited, a pattern or format added or changed", "Callers that send a value out of the new bound are refused.", ""}
	RuleInputSchemaChanged = Rule{"input-schema-changed", Breaking, "An input schema changed in a way that may refuse what it took (anyOf, $ref, not, ...)", "Could not tell whether callers still pass: check by hand.", ""}
	RuleOutputRemoved      = Rule{"output-removed", Breaking, "An output field (or the whole output schema) was removed", "Callers that read it find nothing.", ""}
	RuleOutputChanged      = Rule{"output-changed", Breaking, "An output field changed: its type, its values widened, no longer always present", "Callers that read it as before may fail.", ""}
	RuleTaskRequired       = Rule{"tool-task-required", Breaking, "A tool now must be run as a task (execution.taskSupport \"required\")", "Callers that call it directly, without a task, are refused. Keep it optional until callers moved.", ""}
	RuleCapabilityRemoved  = Rule{"capability-removed", Breaking, "A capability the server declared is gone", "Clients that use it (list changes, subscriptions, logging, an extension) lose it.", ""}

	// Review: what the model or the user is told.
	RuleDescriptionChanged  = Rule{"description-changed", Review, "A description the model reads changed", "Read the new text: a description is where instructions aimed at the model hide.", "5.0"}
	RuleTitleChanged        = Rule{"title-changed", Review, "A title shown to users changed", "Check that it still names what the tool does.", ""}
	RuleInstructionsChanged = Rule{"instructions-changed", Review, "The server's instructions to the model changed", "Read the new instructions: they steer every tool call of the model.", "5.0"}
	RuleRugPull             = Rule{"annotation-rug-pull", Review, "A tool's annotations now allow more than users approved: no longer read-only, now destructive or reaching the open world", "Clients that approved the tool on its old hints are not asked again. Make it a new tool, or make sure clients ask again.", "8.0"}
	RuleAnnotationChanged   = Rule{"annotation-changed", Review, "A tool's or resource's annotations changed", "Check that the hints still say what the tool does.", ""}
	RuleIconChanged         = Rule{"icon-changed", Review, "An icon shown to users changed", "Check where the new icon comes from.", ""}
	RuleServerInfoChanged   = Rule{"server-info-changed", Review, "The server's name, title, description or website changed", "Clients show it, and some name the server's tools after it.", ""}
	RuleProtocolChanged     = Rule{"protocol-changed", Review, "The protocol version the server speaks changed", "Check that clients of the old version still connect.", ""}
	RuleSchemaNoteChanged   = Rule{"schema-annotation-changed", Review, "A default, an example or another note in a schema changed", "The model fills inputs from these: check the new values.", ""}
	RuleResourceInfoChanged = Rule{"resource-info-changed", Review, "A resource's name changed", "Clients show it.", ""}

	// Safe.
	RuleToolAdded          = Rule{"tool-added", Safe, "A tool was added", "", ""}
	RulePromptAdded        = Rule{"prompt-added", Safe, "A prompt was added", "", ""}
	RuleResourceAdded      = Rule{"resource-added", Safe, "A resource or resource template was added", "", ""}
	RuleInputAdded         = Rule{"input-added", Safe, "An optional input was added", "", ""}
	RuleArgumentAdded      = Rule{"prompt-argument-added", Safe, "An optional prompt argument was added, or one is no longer required", "", ""}
	RuleInputLoosened      = Rule{"input-loosened", Safe, "An input accepts more: a type widened, a value added, a bound loosened, no longer required", "", ""}
	RuleOutputExtended     = Rule{"output-extended", Safe, "The output promises more: a field or an output schema added, values narrowed", "", ""}
	RuleCapabilityAdded    = Rule{"capability-added", Safe, "A capability was added", "", ""}
	RuleVersionChanged     = Rule{"server-version-changed", Safe, "The server's version changed", "", ""}
	RuleExecutionChanged   = Rule{"tool-execution-changed", Review, "How a tool runs as a task changed (its execution member)", "Check that callers that run it directly, or as a task, still can.", ""}
	RuleCapabilityOption   = Rule{"capability-changed", Review, "A capability's settings changed", "Check what clients of the old settings do.", ""}
	RuleClientDeclaredLess = Rule{"client-declared-less", Review, "Something only the old catalog has (a tool, prompt, resource or capability) is missing from a catalog whose client declared less (a client capability, an older protocol)", "The server may offer it only to clients that declare more: save both catalogs with the same client (the same mcp-tester and --protocol) to compare the server alone.", ""}
	RuleMemberChanged      = Rule{"member-changed", Review, "Another member the server sent of itself, a tool, a prompt or a resource changed (its _meta, a member of a later protocol)", "Check what clients make of it: some show it, or act on it.", ""}
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
