package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/askback/askback/internal/checks/urlcheck"
	"github.com/askback/askback/internal/report"
	"github.com/askback/askback/internal/text/credential"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// checkFlags refuses what no command means, whichever it is: output
// formats that contradict each other (--json or --raw with --format text,
// --json with --raw) and a negative time limit.
func checkFlags(cmd *cobra.Command) error {
	f := cmd.Flags()
	if err := checkOutputFlags(outputFlags(f)); err != nil {
		return err
	}
	return checkDurations(f)
}

// outputFlags are --format, --json and --raw as the person gave them, ""
// for one not given.
func outputFlags(f *pflag.FlagSet) (format, jsonFlag, raw string) {
	format, jsonFlag, raw = givenValue(f, "format"), givenValue(f, "json"), givenValue(f, "raw")
	if fl := f.Lookup("format"); fl != nil && fl.Changed {
		if v, ok := fl.Value.(formatValue); ok && v.asked != nil {
			format = *v.asked
		}
	}
	if fl := f.Lookup("json"); fl != nil && fl.Changed {
		if v, ok := fl.Value.(jsonAlias); ok && v.said != nil {
			jsonFlag = fmt.Sprint(*v.said) // --format text after it overrode it
		}
	}
	return format, jsonFlag, raw
}

// givenValue is the value of the flag name when it was given, else "".
func givenValue(f *pflag.FlagSet, name string) string {
	if fl := f.Lookup(name); fl != nil && fl.Changed {
		return fl.Value.String()
	}
	return ""
}

// checkOutputFlags refuses output formats that contradict each other.
func checkOutputFlags(format, jsonFlag, raw string) error {
	switch {
	case format == report.Text && jsonFlag == "true":
		return usageErr("--json and --format text contradict each other: give one")
	case format == report.Text && raw == "true":
		return usageErr("--raw prints JSON, --format text asks for text: give one")
	case raw == "true" && (jsonFlag == "true" || format == report.JSON):
		return usageErr("--raw prints the result as the server sent it, --json (--format json) prints the questions and the result: give one")
	}
	return nil
}

// checkDurations refuses a negative time given to any flag of durations.
func checkDurations(f *pflag.FlagSet) error {
	var err error
	f.VisitAll(func(fl *pflag.Flag) {
		if err != nil || !fl.Changed || fl.Value.Type() != "duration" {
			return
		}
		if d, e := time.ParseDuration(fl.Value.String()); e == nil && d < 0 {
			err = usageErr("--%s %s: a time can not be negative", fl.Name, fl.Value)
		}
	})
	return err
}

// urlOnlyFlags mean something for a server reached by URL only.
var urlOnlyFlags = []string{
	"header", "transport",
	"login", "identity", "client-id", "client-metadata-url", "client-credentials", "client-key",
	"assertion-file", "id-token-file", "idp-issuer", "idp-client-id", "scope", "redirect-url",
	"no-browser", "login-timeout",
}

// checkApplies refuses flags given for an HTTP server when the server is a
// command: they would be dropped without a word.
func (o *ConnOptions) checkApplies() error {
	if o.Command == "" {
		return nil
	}
	for _, name := range urlOnlyFlags {
		if o.given(name) {
			return usageErr("--%s applies to a server reached by URL (-u), not to a command (-c%s)", name, fromProfile(o.Profile))
		}
	}
	return nil
}

func fromProfile(p string) string {
	if p == "" {
		return ""
	}
	return fmt.Sprintf(", from profile %q", p)
}

// argsWantJSON reports whether a command line asks for JSON on stdout
// (--format json, --json, --raw), read from the words as given: for
// errors met before the flags were all read.
func argsWantJSON(args []string) bool {
	for i, a := range args {
		switch {
		case a == "--":
			return false
		case a == "--json", a == "--json=true", a == "--raw", a == "-r", a == "--raw=true", a == "--format=json":
			return true
		case a == "--format" && i+1 < len(args) && args[i+1] == report.JSON:
			return true
		case strings.HasPrefix(a, "--format=") || a == "--format":
			return false
		}
	}
	return false
}

// checkURLFlag checks a URL given on the command line (flag names it) for
// characters a reader cannot see or that change how it is shown. One that
// holds a control character as it is (ESC, NUL, a C1 control) is refused:
// no URL holds one, and what was typed or pasted is not what would be
// sent. Other hidden characters (bidirectional controls, zero-width
// characters, controls percent-encoded), in any part of the URL, are
// legal but make the URL shown differ from the URL used: a warning names
// each on w.
func checkURLFlag(w io.Writer, flag, raw string) error {
	if raw == "" {
		return nil
	}
	hidden := urlcheck.Hidden(raw)
	for _, h := range hidden {
		if h.Control() {
			return usageErr("%s: the URL holds %s: refused (a URL cannot hold a control character as it is; percent-encode it if the server needs it)", flag, h)
		}
	}
	if len(hidden) > 0 {
		fmt.Fprintf(w, "mcp-tester: warning: %s %s: %s\n", flag, credential.RedactURL(raw), urlcheck.DescribeHidden(hidden))
	}
	if err := urlcheck.ServerURL(raw); err != nil {
		return usageErr("%s %s: %v", flag, credential.RedactURL(raw), err)
	}
	return nil
}
