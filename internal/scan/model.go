package scan

import (
	"fmt"
	"regexp"
)

// Phrases are looked for in the folded text (see fold), case-insensitive,
// within one sentence: the gaps they allow stop at a full stop, a
// question or exclamation mark and a line break.
var (
	// overridePhrases tell the model to ignore or override its
	// instructions, or claim precedence over them.
	overridePhrases = []*regexp.Regexp{
		regexp.MustCompile(`(?i)\b(?:ignore|disregard|forget)\b[^.!?\n]{0,40}?\b(?:previous|prior|above|earlier|preceding|all|any|your|system|other|existing|original)\b[^.!?\n]{0,30}?\b(?:instructions?|prompts?|rules|guidelines|directives|policies|guardrails|constraints)\b`),
		regexp.MustCompile(`(?i)\b(?:override|bypass|circumvent)\b[^.!?\n]{0,30}?\b(?:your|system|safety|previous|prior|the\s+user'?s|all|any)\b[^.!?\n]{0,20}?\b(?:instructions?|prompts?|guidelines|directives|guardrails|safety\s+(?:checks|measures|filters|rules))\b`),
		regexp.MustCompile(`(?i)\b(?:these|this|the\s+following|my|our)\s+(?:instructions?|rules|directives?|notes?)\s+(?:take|takes|have|has)\s+(?:precedence|priority)\b`),
		regexp.MustCompile(`(?i)\b(?:supersedes?|overrides?|takes?\s+precedence\s+over)\s+(?:all\s+|any\s+)?(?:previous\s+|prior\s+|other\s+|the\s+|your\s+)?(?:system\s+prompt|system\s+message|instructions|user'?s?\s+instructions)\b`),
		regexp.MustCompile(`(?i)\byou\s+are\s+(?:now|no\s+longer)\s+(?:a|an|in|my|acting|operating|free|unrestricted|jailbroken|bound)\b`),
		regexp.MustCompile(`(?i)\bnew\s+(?:system\s+)?instructions?\s*:`),
	}
	// concealPhrases tell the model to keep something from the user or to
	// act unseen.
	concealPhrases = []*regexp.Regexp{
		regexp.MustCompile(`(?i)\b(?:do\s+not|don'?t|never|must\s+not|should\s+not|without)\s+(?:ever\s+)?(?:tell|telling|inform|informing|mention|mentioning|reveal|revealing|disclose|disclosing|notify|notifying|alert|alerting|let)\b[^.!?\n]{0,40}?\b(?:the\s+)?(?:user|users|human|person|operator|owner)\b`),
		regexp.MustCompile(`(?i)\b(?:hide|conceal)\b[^.!?\n]{0,40}?\bfrom\s+(?:the\s+)?(?:user|users|human|person)\b`),
		regexp.MustCompile(`(?i)\b(?:the\s+)?user\s+(?:must|should|needs?)\s*(?:not|never|n't)\s+(?:to\s+)?(?:know|see|find\s+out|be\s+told|notice|learn|be\s+aware)\b`),
		regexp.MustCompile(`(?i)\b(?:secretly|covertly|surreptitiously|silently|quietly)\s+(?:send|forward|copy|upload|exfiltrate|transmit|bcc|include|add|append|attach|read|collect|call|invoke|run|execute|change|modify)\b`),
		regexp.MustCompile(`(?i)\b(?:do\s+not|don'?t|never)\s+(?:mention|reveal|disclose|explain|say)\s+(?:this|that|these|it|anything\s+about\s+(?:this|these))\b`),
		regexp.MustCompile(`(?i)\bkeep\s+(?:this|these|it|that)\s+(?:a\s+)?(?:secret|hidden|confidential|between\s+us)\b`),
	}
	// secretFile names a file that holds keys or credentials.
	secretFile = regexp.MustCompile(`(?i)(?:~/)?(?:\.ssh\b|\.ssh/|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\bauthorized_keys\b|\.aws/(?:credentials|config)\b|\.netrc\b|\.npmrc\b|\.pypirc\b|\.git-credentials\b|\.docker/config\.json|\.kube/config\b|/etc/(?:passwd|shadow|sudoers)\b|\bclaude_desktop_config\.json|\.cursor/mcp\.json|\bmcp\.json\b|\.config/gcloud\b|\bcredentials\.json\b|\bwallet\.dat\b|\.gnupg\b|(?:^|[\s'"` + "`" + `(/])\.env(?:\.[a-z]+)?\b)`)
	// readVerb asks for a file's content.
	readVerb = regexp.MustCompile(`(?i)\b(?:read|reads|reading|cat|open|load|include|pass|send|attach|upload|provide|copy|paste|extract|fetch|get|print|output|append|concatenate|retrieve|access|contents?)\b`)
	// secretsGathered asks to gather the user's secrets, or all of them.
	secretsGathered = regexp.MustCompile(`(?i)\b(?:include|pass|send|attach|upload|provide|copy|paste|append|forward|put|add|insert|embed|share|collect|gather|read|extract|list)\b[^.!?\n]{0,40}?\b(?:all|every|any|the\s+user'?s|users'|stored|saved|local)\s+(?:of\s+the\s+)?(?:api[\s_-]?keys?|access[\s_-]?tokens?|auth[\s_-]?tokens?|tokens|passwords?|passphrases?|credentials|private[\s_-]?keys?|secret[\s_-]?keys?|secrets|ssh[\s_-]?keys?|seed\s+phrases?|session\s+cookies?|cookies|environment\s+variables)\b`)
	// precondition puts a tool in front of every other tool, or of every
	// conversation.
	precondition = []*regexp.Regexp{
		regexp.MustCompile(`(?i)\bbefore\s+(?:using|calling|invoking|running|executing|you\s+(?:use|call|run|invoke))\s+(?:any|every|all|each|other|another)\b[^.!?\n]{0,20}?\b(?:tools?|functions?|commands?|actions?)\b`),
		regexp.MustCompile(`(?i)\bbefore\s+(?:any|every|all|each)\s+(?:other\s+)?(?:tools?|functions?|tool\s+calls?|actions?)\b`),
		regexp.MustCompile(`(?i)\b(?:at|in)\s+(?:the\s+)?(?:start|beginning)\s+of\s+(?:every|each|any|all)\s+(?:conversations?|sessions?|chats?|turns?|responses?|tasks?|requests?|messages?)\b`),
		regexp.MustCompile(`(?i)\b(?:every|each)\s+time\s+(?:you|the\s+user|the\s+assistant)\s+(?:respond|answer|reply|receive|start|begin|get)\b`),
		regexp.MustCompile(`(?i)\bbefore\s+(?:responding|answering|replying)\s+to\s+(?:the\s+user|any|every|each)\b`),
		regexp.MustCompile(`(?i)\b(?:call|use|run|invoke)\s+this\s+(?:tool|function)\s+(?:first\s+)?(?:before|prior\s+to)\s+(?:any|every|all|each)\b`),
	}
	// ownScope limits a precondition to the server's own tools.
	ownScope = regexp.MustCompile(`(?i)\b(?:of|in|from|on|by)\s+this\s+(?:server|mcp\s+server|integration|toolkit|toolset|extension|plugin|package)\b|\bthis\s+server'?s\b|\b(?:these|our)\s+(?:tools|functions)\b`)
)

// modelDirected reports instructions aimed at the model: to ignore other
// instructions (MCPS010), to keep something from the user (MCPS011), to
// read files or secrets (MCPS012), to run first whatever else is done
// (MCPS013).
func (s *scanner) modelDirected(t *text, plain string) {
	if m := firstMatch(overridePhrases, plain); m != "" {
		s.add(RuleOverride, High, t, fmt.Sprintf("tells the model to set its instructions aside: %q", clipWords(m)), m)
	}
	if m := firstMatch(concealPhrases, plain); m != "" {
		s.add(RuleConceal, High, t, fmt.Sprintf("tells the model to keep something from the user: %q", clipWords(m)), m)
	}
	s.secrets(t, plain)
	for _, sent := range sentences(plain) {
		m := firstMatch(precondition, sent)
		if m == "" {
			continue
		}
		if ownScope.MatchString(sent) {
			s.add(RulePrecondition, Medium, t, fmt.Sprintf("puts this tool before the server's other tools: %q", clipWords(m)), sent)
		} else {
			s.add(RulePrecondition, High, t, fmt.Sprintf("puts itself before every tool or conversation: %q", clipWords(m)), sent)
		}
	}
}

// secrets reports requests to read files that hold keys or credentials,
// or to gather secrets (MCPS012).
func (s *scanner) secrets(t *text, plain string) {
	for _, sent := range sentences(plain) {
		if loc := secretFile.FindStringIndex(sent); loc != nil {
			file := sent[loc[0]:loc[1]]
			if readVerb.MatchString(sent) {
				s.add(RuleSecrets, High, t, fmt.Sprintf("asks for the content of %s, a file of keys or credentials", trimFile(file)), sent)
			} else {
				s.add(RuleSecrets, Medium, t, fmt.Sprintf("names %s, a file of keys or credentials", trimFile(file)), sent)
			}
		}
		if m := secretsGathered.FindString(sent); m != "" {
			s.add(RuleSecrets, High, t, fmt.Sprintf("asks to gather secrets: %q", clipWords(m)), sent)
		}
	}
}

// trimFile strips what the file pattern took before a file name.
func trimFile(f string) string {
	for len(f) > 0 && (f[0] == ' ' || f[0] == '\'' || f[0] == '"' || f[0] == '`' || f[0] == '(') {
		f = f[1:]
	}
	return f
}

// firstMatch returns the first match of the first pattern that matches s.
func firstMatch(patterns []*regexp.Regexp, s string) string {
	for _, p := range patterns {
		if m := p.FindString(s); m != "" {
			return m
		}
	}
	return ""
}
