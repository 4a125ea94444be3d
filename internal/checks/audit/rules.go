package audit

// Rule is one rule of asking that the audit checks.
type Rule struct {
	N     int    // the rule's number, from 1
	ID    string // a stable short name, used in JSON and JUnit output
	Title string // what a server must do
}

// The rules, in the order they are reported.
var (
	RuleTamper = Rule{1, "state-tamper",
		"tampered requestState is refused"}
	RuleReplay = Rule{2, "state-bound-to-request",
		"requestState replayed on a request with other arguments is refused"}
	RuleUser = Rule{3, "state-bound-to-user",
		"requestState issued to one user is refused for another"}
	RuleNoCapability = Rule{4, "no-ask-without-capability",
		"a client that declares no elicitation is never asked"}
	RuleFormsOnly = Rule{5, "forms-only-no-url",
		"a client that declares forms only is never sent URL mode"}
	RuleSchema = Rule{6, "form-schema-subset",
		"form schemas stay within the restricted subset"}
	RuleSecrets = Rule{7, "form-no-secrets",
		"forms never ask for secrets"}
	RuleDecline = Rule{8, "decline-cancel-normal",
		"decline and cancel give a normal result"}
	RuleMissing = Rule{9, "missing-and-extra-answers",
		"a missing answer is asked again; unknown extra answers are ignored"}
	RuleBounded = Rule{10, "asking-ends",
		"answering ends the asking within a bound"}
	RuleURL = Rule{11, "url-safe",
		"URL questions use https and carry no credentials"}
	RulePlacement = Rule{12, "input-required-placement",
		"input_required comes only on tools/call, prompts/get, resources/read"}
)

// Rules lists every rule in order.
func Rules() []Rule {
	return []Rule{RuleTamper, RuleReplay, RuleUser, RuleNoCapability, RuleFormsOnly, RuleSchema,
		RuleSecrets, RuleDecline, RuleMissing, RuleBounded, RuleURL, RulePlacement}
}

// subjectRules are the rules checked for each tool, prompt and resource;
// RulePlacement is checked once for the whole server.
func subjectRules() []Rule { return Rules()[:11] }
