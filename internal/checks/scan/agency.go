package scan

import (
	"fmt"
	"strings"
	"sync"
	"unicode"

	"github.com/askback/askback/internal/text/lazyre"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// What a tool with agency does.
const (
	runsCommands = "runs commands or code"
	deletes      = "deletes or overwrites"
	spends       = "spends money"
)

// Words of tool names, lower case (see nameWords).
var (
	execNames = sync.OnceValue(func() map[string]bool {
		return map[string]bool{"exec": true, "execute": true, "shell": true, "bash": true, "powershell": true, "terminal": true, "spawn": true, "subprocess": true, "cmd": true}
	})
	runObjects = sync.OnceValue(func() map[string]bool {
		return map[string]bool{"command": true, "commands": true, "code": true, "script": true, "cmd": true, "shell": true, "process": true}
	})
	evalNames   = sync.OnceValue(func() map[string]bool { return map[string]bool{"eval": true, "evaluate": true} })
	deleteNames = sync.OnceValue(func() map[string]bool {
		return map[string]bool{"delete": true, "remove": true, "rm": true, "drop": true, "destroy": true, "purge": true, "wipe": true,
			"erase": true, "truncate": true, "kill": true, "terminate": true, "uninstall": true, "revoke": true, "unlink": true, "rmdir": true, "overwrite": true}
	})
	spendNames = sync.OnceValue(func() map[string]bool {
		return map[string]bool{"pay": true, "payment": true, "purchase": true, "buy": true, "checkout": true, "withdraw": true,
			"refund": true, "donate": true, "charge": true, "trade": true, "sell": true, "swap": true}
	})
	// readNames start the names of tools that only look: preview_delete,
	// get_payment, list_orders.
	readNames = sync.OnceValue(func() map[string]bool {
		return map[string]bool{"get": true, "list": true, "read": true, "search": true, "find": true, "show": true, "describe": true,
			"check": true, "preview": true, "validate": true, "estimate": true, "count": true, "query": true, "view": true, "fetch": true,
			"inspect": true, "explain": true, "lookup": true, "dry": true, "simulate": true, "quote": true, "status": true}
	})
)

var (
	// execWords say that a tool runs commands or code.
	execWords = lazyre.New(`(?i)\b(?:execut(?:e|es|ing)|runs?|running|evaluat(?:e|es|ing)|spawn(?:s|ing)?)\b[^.!?\n]{0,30}?\b(?:shell|commands?|scripts?|code|javascript|js|python|bash|powershell|programs?|binar(?:y|ies)|processes)\b|\barbitrary\s+(?:code|commands?|javascript|scripts?|sql)\b`)
	// deleteWords say that a tool deletes or overwrites.
	deleteWords = lazyre.New(`(?i)\b(?:delete|deletes|deleting|permanently\s+remov(?:e|es|ing)|erase|erases|destroy|destroys|purge|purges|wipe|wipes|truncate|truncates|overwrite|overwrites|uninstall|uninstalls|drop(?:s|ping)?\s+(?:the\s+)?(?:table|database|schema|index|collection|column)s?)\b`)
	// spendWords say that a tool spends money.
	spendWords = lazyre.New(`(?i)\b(?:pay|pays|paying|make\s+(?:a\s+)?payments?|purchases?|purchasing|buys?|buying|checks?\s+out|withdraw(?:s|al)?|refunds?|donat(?:e|es|ion)|charges?\s+(?:the\s+)?(?:card|customer|account|user)|transfers?\s+(?:funds|money|tokens|crypto|usd|eth|btc|sol)|send\s+(?:money|funds|payment|crypto|tokens)|place\s+(?:an?\s+)?orders?)\b`)
	// negated says the words that follow do not happen: "does not
	// delete", "never overwrites", "without deleting".
	negated = lazyre.New(`(?i)\b(?:not|never|without|no|n't|cannot|won't)\s+(?:\w+\s+){0,2}$`)
	// codeWords make an eval tool's name mean code.
	codeWords = lazyre.New(`(?i)\b(?:javascript|js|code|script|python|shell|command|expression)\b`)
)

// agency reports a tool that runs commands, deletes or spends without
// annotations that say so (MCPS040), or with annotations that say it is
// harmless (MCPS041).
func (s *scanner) agency(i int, tool *mcp.Tool) {
	what, byName := agencyOf(tool)
	if what == "" {
		return
	}
	a := tool.Annotations
	t := &text{subject: fmt.Sprintf("tool %q", tool.Name), path: fmt.Sprintf("$.tools[%d].annotations", i)}
	how, sev := "its description says so", Medium
	if byName {
		how, sev = "its name says so", High
	}
	switch {
	case a == nil:
		t.path = fmt.Sprintf("$.tools[%d]", i)
		s.add(RuleUnannotated, Medium, t, fmt.Sprintf("%s (%s) and has no annotations: set destructiveHint (and openWorldHint) so that clients ask first", what, how), tool.Name)
	case a.ReadOnlyHint:
		s.add(RuleContradicted, sev, t, fmt.Sprintf(`%s (%s) but is marked "readOnlyHint": true: clients run it without asking`, what, how), tool.Name)
	case a.DestructiveHint != nil && !*a.DestructiveHint && what != spends:
		s.add(RuleContradicted, sev, t, fmt.Sprintf(`%s (%s) but is marked "destructiveHint": false: clients run it without asking`, what, how), tool.Name)
	case a.DestructiveHint == nil:
		s.add(RuleUnannotated, Low, t, fmt.Sprintf("%s (%s) and its annotations leave destructiveHint out (clients assume true): say it", what, how), tool.Name)
	}
}

// agencyOf says what a tool does that needs a person's consent, and
// whether its name says so (else its description does); "" for neither.
func agencyOf(t *mcp.Tool) (what string, byName bool) {
	words := nameWords(t.Name)
	desc := headTail(fold(t.Description))
	if len(words) > 0 && readNames()[words[0]] {
		return "", false // a tool that looks: get_payment, preview_delete
	}
	if what := agencyByName(words, desc); what != "" {
		return what, true
	}
	return agencyByDescription(desc), false
}

// agencyByName says what a tool named words does that needs consent, or
// "": its description (desc) tells only whether an eval is of code.
func agencyByName(words []string, desc string) string {
	for i, w := range words {
		switch {
		case execNames()[w], w == "run" && i+1 < len(words) && runObjects()[words[i+1]]:
			return runsCommands
		case evalNames()[w] && codeWords.MatchString(desc):
			return runsCommands
		case deleteNames()[w]:
			return deletes
		case spendNames()[w]:
			return spends
		}
	}
	return ""
}

// descriptionAgency says what a description's words tell a tool does:
// the stems one of which the words need (a cheap test first), and the
// words.
var descriptionAgency = []struct {
	what  string
	stems []string
	words *lazyre.Regexp
}{
	{runsCommands, []string{"execut", "run", "evaluat", "spawn", "arbitrary"}, execWords},
	{deletes, []string{"delet", "remov", "eras", "destroy", "purge", "wipe", "truncat", "overwrit", "uninstall", "drop"}, deleteWords},
	{spends, []string{"pay", "purchas", "buy", "check", "withdraw", "refund", "donat", "charge", "transfer", "send", "order"}, spendWords},
}

// agencyByDescription says what the description desc (folded) tells a
// tool does that needs consent, affirmed and not negated, or "".
func agencyByDescription(desc string) string {
	lower := strings.ToLower(desc)
	for _, a := range descriptionAgency {
		if hasAny(lower, a.stems...) && affirmed(a.words, desc) {
			return a.what
		}
	}
	return ""
}

// affirmed reports whether re matches s somewhere not negated.
func affirmed(re *lazyre.Regexp, s string) bool {
	for _, loc := range re.FindAllStringIndex(s, 8) {
		if !negated.MatchString(s[:loc[0]]) {
			return true
		}
	}
	return false
}

// nameWords splits a name into lower-case words at separators and case
// changes: runShellCommand, run_shell-command → run shell command.
func nameWords(name string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, strings.ToLower(b.String()))
			b.Reset()
		}
	}
	prev := rune(0)
	for _, r := range fold(name) {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && prev != 0 && unicode.IsLower(prev):
			flush()
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
		prev = r
	}
	flush()
	return out
}
