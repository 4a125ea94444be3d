package scan

import (
	"fmt"
	"strings"
	"sync"

	"github.com/askback/askback/internal/text/lazyre"
)

// Phrases are looked for in the folded text (see fold), case-insensitive,
// one sentence at a time (see prose).
var (
	// overridePhrases tell the model to ignore or override its
	// instructions, or claim precedence over them.
	overridePhrases = sync.OnceValue(func() []phrase {
		return []phrase{
			newPhrase("ignore|disregard|forget|overlook|dismiss|discard|abandon|aside|attention|heed|mind|follow|obey & instruction|prompt|rules|guidelines|directives|directions|guidance|policies|guardrails|constraints|safeguards|programming", `\b(?:ignore|disregard|forget|overlook|dismiss|discard|abandon|(?:set|put|cast|leave)\s+aside|pay\s+no\s+(?:attention|heed|mind)\s+to|(?:do\s+not|don'?t|no\s+longer|stop)\s+(?:follow|following|obey|obeying|heed|heeding))\b[^.!?\n]{0,40}?\b(?:previous|prior|above|earlier|preceding|foregoing|former|initial|all|any|your|system|other|existing|original)\b[^.!?\n]{0,30}?\b(?:instructions?|prompts?|rules|guidelines|directives|directions|guidance|policies|guardrails|constraints|safeguards|programming)\b`),
			newPhrase("override|bypass|circumvent & instruction|prompt|guidelines|directives|guardrails|safety", `\b(?:override|bypass|circumvent)\b[^.!?\n]{0,30}?\b(?:your|system|safety|previous|prior|the\s+user'?s|all|any)\b[^.!?\n]{0,20}?\b(?:instructions?|prompts?|guidelines|directives|guardrails|safety\s+(?:checks|measures|filters|rules))\b`),
			newPhrase("precedence|priority", `\b(?:these|this|the\s+following|my|our)\s+(?:instructions?|rules|directives?|notes?)\s+(?:take|takes|have|has)\s+(?:precedence|priority)\b`),
			newPhrase("supersede|override|precedence & system|instructions", `\b(?:supersedes?|overrides?|takes?\s+precedence\s+over)\s+(?:all\s+|any\s+)?(?:previous\s+|prior\s+|other\s+|the\s+|your\s+)?(?:system\s+prompt|system\s+message|instructions|user'?s?\s+instructions)\b`),
			newPhrase("you are", `\byou\s+are\s+(?:now|no\s+longer)\s+(?:a|an|in|my|acting|operating|free|unrestricted|jailbroken|bound)\b`),
			newPhrase("instruction", `\bnew\s+(?:system\s+)?instructions?\s*:`),
		}
	})
	// concealPhrases tell the model to keep something from the user or to
	// act unseen.
	concealPhrases = sync.OnceValue(func() []phrase {
		return []phrase{
			newPhrase("tell|inform|mention|reveal|disclos|notify|alert|let & user|human|person|operator|owner|requester", `\b(?:do\s+not|don'?t|never|must\s+not|should\s+not|without)\s+(?:ever\s+)?(?:tell|telling|inform|informing|mention|mentioning|reveal|revealing|disclose|disclosing|notify|notifying|alert|alerting|let)\b[^.!?\n]{0,40}?\b(?:the\s+)?(?:user|users|human|person|operator|owner|requester|end[\s-]user)\b`),
			newPhrase("hide|conceal & from & user|human|person", `\b(?:hide|conceal)\b[^.!?\n]{0,40}?\bfrom\s+(?:the\s+)?(?:user|users|human|person)\b`),
			newPhrase("user", `\b(?:the\s+)?user\s+(?:must|should|needs?)\s*(?:not|never|n't)\s+(?:to\s+)?(?:know|see|find\s+out|be\s+told|notice|learn|be\s+aware)\b`),
			newPhrase("secretly|covertly|surreptitiously|silently|quietly|stealthily|discreetly|invisibly", `\b(?:secretly|covertly|surreptitiously|silently|quietly|stealthily|discreetly|invisibly)\s+(?:send|forward|copy|upload|exfiltrate|transmit|bcc|include|add|append|attach|read|collect|call|invoke|run|execute|change|modify)\b`),
			newPhrase("mention|reveal|disclose|explain|say", `\b(?:do\s+not|don'?t|never)\s+(?:mention|reveal|disclose|explain|say)\s+(?:this|that|these|it|anything\s+about\s+(?:this|these))\b`),
			newPhrase("keep", `\bkeep\s+(?:this|these|it|that)\s+(?:a\s+)?(?:secret|hidden|confidential|between\s+us)\b`),
		}
	})
	// secretFile names a file that holds keys or credentials.
	secretFile = lazyre.New(`(?i)(?:~/)?(?:\.ssh\b|\.ssh/|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\bauthorized_keys\b|\.aws/(?:credentials|config)\b|\.netrc\b|\.npmrc\b|\.pypirc\b|\.git-credentials\b|\.docker/config\.json|\.kube/config\b|/etc/(?:passwd|shadow|sudoers)\b|\bclaude_desktop_config\.json|\.cursor/mcp\.json|\bmcp\.json\b|\.config/gcloud\b|\bcredentials\.json\b|\bwallet\.dat\b|\.(?:bash|zsh|sh|fish|python|psql|mysql|node_repl|sqlite)_history\b|\.config/gh/hosts\.ya?ml\b|\.gnupg\b|(?:^|[\s'"` + "`" + `(/])\.env(?:\.[a-z]+)?\b)`)
	// readVerb asks for a file's content.
	readVerb = lazyre.New(`(?i)\b(?:read|reads|reading|cat|open|load|include|pass|send|attach|upload|provide|copy|paste|extract|fetch|get|print|output|append|concatenate|retrieve|access|contents?)\b`)
	// secretsGathered asks to gather the user's secrets, or all of them.
	secretsGathered = lazyre.New(`(?i)\b(?:include|pass|send|attach|upload|provide|copy|paste|append|forward|put|add|insert|embed|share|collect|gather|read|extract|list)\b[^.!?\n]{0,40}?\b(?:all|every|any|the\s+user'?s|users'|stored|saved|local)\s+(?:of\s+the\s+)?(?:api[\s_-]?keys?|access[\s_-]?tokens?|auth[\s_-]?tokens?|tokens|passwords?|passphrases?|credentials|private[\s_-]?keys?|secret[\s_-]?keys?|secrets|ssh[\s_-]?keys?|seed\s+phrases?|session\s+cookies?|cookies|environment\s+variables)\b`)
	// precondition puts a tool in front of every other tool, or of every
	// conversation.
	precondition = sync.OnceValue(func() []phrase {
		return []phrase{
			newPhrase("before & tool|function|command|action", `\bbefore\s+(?:using|calling|invoking|running|executing|you\s+(?:use|call|run|invoke))\s+(?:any|every|all|each|other|another)\b[^.!?\n]{0,20}?\b(?:tools?|functions?|commands?|actions?)\b`),
			newPhrase("before & tool|function|action", `\bbefore\s+(?:any|every|all|each)\s+(?:other\s+)?(?:tools?|functions?|tool\s+calls?|actions?)\b`),
			newPhrase("start of|beginning of & conversation|session|chat|turn|response|task|request|message", `\b(?:at|in)\s+(?:the\s+)?(?:start|beginning)\s+of\s+(?:every|each|any|all)\s+(?:conversations?|sessions?|chats?|turns?|responses?|tasks?|requests?|messages?)\b`),
			newPhrase("time", `\b(?:every|each)\s+time\s+(?:you|the\s+user|the\s+assistant)\s+(?:respond|answer|reply|receive|start|begin|get)\b`),
			newPhrase("before & responding|answering|replying", `\bbefore\s+(?:responding|answering|replying)\s+to\s+(?:the\s+user|any|every|each)\b`),
			newPhrase("before|prior to & tool|function", `\b(?:call|use|run|invoke)\s+this\s+(?:tool|function)\s+(?:first\s+)?(?:before|prior\s+to)\s+(?:any|every|all|each)\b`),
		}
	})
	// ownScope limits a precondition to the server's own tools.
	ownScope = lazyre.New(`(?i)\b(?:of|in|from|on|by)\s+this\s+(?:server|mcp\s+server|integration|toolkit|toolset|extension|plugin|package)\b|\bthis\s+server'?s\b|\b(?:these|our)\s+(?:tools|functions)\b`)
)

// secretFileLiterals are strings (lower case) one of which every match of
// secretFile holds, one or more for each of its alternatives: a sentence
// in lower case without any of them has no match, and secretFile need not
// run on it. Keep them in step with secretFile:
// TestLiteralTestsHoldEveryMatch checks each alternative.
var secretFileLiterals = []string{
	".ssh", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "authorized_keys",
	".aws/credentials", ".aws/config", ".netrc", ".npmrc", ".pypirc",
	".git-credentials", ".docker/config.json", ".kube/config",
	"/etc/passwd", "/etc/shadow", "/etc/sudoers", "claude_desktop_config.json",
	"mcp.json", ".config/gcloud", "credentials.json", "wallet.dat", "_history", ".config/gh/hosts.y", ".gnupg", ".env",
}

// The words one of which the files and secrets the rules look for need.
var (
	secretFileWords = []string{".ssh", "id_", "authorized_keys", ".aws/", ".netrc", ".npmrc", ".pypirc", ".git-credentials", ".docker/", ".kube/", "/etc/", "mcp.json", "claude_desktop", ".config/gcloud", "credentials.json", "wallet.dat", "_history", ".config/gh/", ".gnupg", ".env"}
	secretWords     = []string{"key", "token", "password", "passphrase", "credential", "secret", "seed phrase", "cookie", "environment variable"}
)

// modelDirected reports instructions aimed at the model: to ignore other
// instructions (MCPS010), to keep something from the user (MCPS011), to
// read files or secrets (MCPS012), to run first whatever else is done
// (MCPS013).
func (s *scanner) modelDirected(t *text, p *prose) {
	if m, _ := p.find(overridePhrases()); m != "" {
		s.add(RuleOverride, High, t, fmt.Sprintf("tells the model to set its instructions aside: %q", clipWords(m)), m)
	}
	if m, _ := p.find(concealPhrases()); m != "" {
		s.add(RuleConceal, High, t, fmt.Sprintf("tells the model to keep something from the user: %q", clipWords(m)), m)
	}
	s.secrets(t, p)
	s.preconditions(t, p)
}

// preconditions reports sentences that put the text's tool before every
// other tool or the conversation (MCPS013): before the server's own
// tools only is of medium severity.
func (s *scanner) preconditions(t *text, p *prose) {
	for i, sent := range p.sents {
		m := p.findIn(precondition(), i)
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
func (s *scanner) secrets(t *text, p *prose) {
	if p.has(secretFileWords...) {
		s.secretFiles(t, p)
	}
	if p.has(secretWords...) {
		s.gatheredSecrets(t, p)
	}
}

// secretFiles reports sentences that name a file of keys or credentials:
// high when they ask for its content.
func (s *scanner) secretFiles(t *text, p *prose) {
	for i, sent := range p.sents {
		if !p.unfiltered && !mayHold(p.lowerSents[i], secretFileLiterals...) {
			continue
		}
		loc := secretFile.FindStringIndex(sent)
		if loc == nil {
			continue
		}
		file := sent[loc[0]:loc[1]]
		if readVerb.MatchString(sent) {
			s.add(RuleSecrets, High, t, fmt.Sprintf("asks for the content of %s, a file of keys or credentials", trimFile(file)), sent)
		} else {
			s.add(RuleSecrets, Medium, t, fmt.Sprintf("names %s, a file of keys or credentials", trimFile(file)), sent)
		}
	}
}

// gatheredSecrets reports sentences that ask to gather secrets, but not
// a negated ask ("never send the user's password …": see negatedAt).
func (s *scanner) gatheredSecrets(t *text, p *prose) {
	for _, sent := range p.sents {
		for _, loc := range secretsGathered.FindAllStringIndex(sent, 8) {
			if negatedAt(strings.Fields(sent[:loc[0]])) {
				continue
			}
			s.add(RuleSecrets, High, t, fmt.Sprintf("asks to gather secrets: %q", clipWords(sent[loc[0]:loc[1]])), sent)
			break
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
func firstMatch(patterns []*lazyre.Regexp, s string) string {
	for _, p := range patterns {
		if m := p.FindString(s); m != "" {
			return m
		}
	}
	return ""
}
