package cli

import (
	"strings"
	"time"

	"github.com/askback/askback/internal/checks/audit"
	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/login"
	"github.com/askback/askback/internal/encoding/userjson"
	"github.com/askback/askback/internal/text/credential"
	"github.com/spf13/cobra"
)

// auditFlags are the flags that say what the audit calls and probes, and
// how long it may take: `audit` and `grade` (which runs the audit) both
// take them, registered by addAuditFlags and turned into the audit's
// options by apply, so that the two commands read them alike.
type auditFlags struct {
	// OtherHeaders are a second identity's headers (--other-header).
	OtherHeaders []string
	// OtherIdentity is a second cached login (--other-identity).
	OtherIdentity string
	Args          []string // NAME=JSON (--args)
	Include       []string // destructive tools to call too (--include)
	ReadOnly      bool     // only the tools marked read-only (--read-only)
	// Deadline bounds the audit's checks (--deadline); DeadlineSet says it
	// was given: without it the bound is deadlineFactor × --timeout.
	Deadline    time.Duration
	DeadlineSet bool
}

// addAuditFlags registers the audit's flags on cmd. scope starts the
// usage of those that concern the audit alone on a command that does more
// ("for the audit: " on grade); "" on audit itself.
func addAuditFlags(cmd *cobra.Command, a *auditFlags, scope string) {
	f := cmd.Flags()
	stringsVar(f, &a.OtherHeaders, "other-header", scope+`a second identity's "Name: value" header, replacing the --header of that name (repeatable; HTTP only)`)
	f.StringVar(&a.OtherIdentity, "other-identity", "", scope+"a second identity's login (see mcp-tester auth login --identity), for the check that state is bound to its user (HTTP only)")
	stringsVar(f, &a.Args, "args", scope+`arguments for one tool or prompt: NAME=JSON object (repeatable)`)
	stringsVar(f, &a.Include, "include", scope+"call this destructive tool too (repeatable; '*' allows every tool)")
	f.BoolVar(&a.ReadOnly, "read-only", false, scope+"call only the tools marked read-only (readOnlyHint), and those --include names")
	f.DurationVar(&a.Deadline, "deadline", 0, "time limit for the audit's checks, from when the server has answered the connect and its lists; checks not run by then are reported incomplete (default 20 × --timeout; 0: no limit)")
}

// noteDeadlineSet records whether --deadline was given; call it before the
// command runs.
func (a *auditFlags) noteDeadlineSet(cmd *cobra.Command) {
	a.DeadlineSet = cmd.Flags().Changed("deadline")
}

// apply checks the flags and puts them into opts, whose Target and
// Timeout are set already. The second identity's headers are hidden on
// ios's output like the first's.
func (a *auditFlags) apply(ios *iostreams.IOStreams, opts *audit.Options) error {
	t := opts.Target
	if len(a.OtherHeaders) > 0 && t.URL == "" {
		return usageErr("--other-header needs an HTTP server (-u URL): a stdio server has a single user")
	}
	ios.AddSecrets(credential.Secrets("", a.OtherHeaders)...)
	if a.OtherIdentity != "" {
		if err := login.ValidIdentity(a.OtherIdentity); err != nil {
			return usageErr("--other-identity: %v", err)
		}
		switch {
		case t.URL == "":
			return usageErr("--other-identity needs an HTTP server (-u URL): a stdio server has a single user")
		case t.Login == nil || hasAuthorization(t.Headers):
			return usageErr("--other-identity needs the first identity to log in too: drop the Authorization header (or use --other-header)")
		case a.OtherIdentity == t.Login.Identity():
			return usageErr("--other-identity %s is the first identity too: name another (--identity picks the first)", a.OtherIdentity)
		}
		opts.OtherLogin = t.Login.For(a.OtherIdentity)
	}
	args := map[string]map[string]any{}
	for _, arg := range a.Args {
		name, text, ok := strings.Cut(arg, "=")
		if !ok || name == "" {
			return usageErr("--args %q: write it as NAME=JSON, e.g. --args 'search={\"query\":\"cats\"}'", arg)
		}
		m, err := userjson.Parse("--args "+name, text, userjson.Float64)
		if err != nil {
			return usageErr("%v", err)
		}
		args[name] = m
	}
	opts.OtherHeaders, opts.Args, opts.Include, opts.ReadOnly = a.OtherHeaders, args, a.Include, a.ReadOnly
	opts.Deadline = a.Deadline
	if !a.DeadlineSet {
		opts.Deadline = deadlineFactor * opts.Timeout
	}
	return nil
}

// deadlineFactor is how many --timeout an audit may take in all unless
// --deadline says otherwise: a normal server is audited in seconds, while
// one that answers every probe just within --timeout would otherwise keep
// it running for tools × probes × --timeout.
const deadlineFactor = 20
