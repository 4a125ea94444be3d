package cli

import (
	"context"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Each command registers the flags it uses, and only those.
func TestCommandFlags(t *testing.T) {
	login := "assertion-file client-credentials client-id client-key client-metadata-url id-token-file identity idp-client-id idp-issuer login login-timeout no-browser redirect-url scope"
	conn := "command connect-timeout header profile protocol show-secrets show-state timeout trace transport url verbose " + login
	want := map[string]string{
		"audit":               "allow-empty args command connect-timeout deadline format header html include junit max-rounds other-header other-identity profile protocol quiet read-only root sample sarif-file show-secrets show-state timeout trace transport url verbose " + login,
		"catalog save":        conn + " output",
		"catalog diff":        conn + " fail-on format",
		"auth login":          "connect-timeout header timeout " + login,
		"auth logout":         "all identity",
		"auth status":         "format identity",
		"bench":               conn + " allow-remote args concurrency duration elicit format html max-rounds no-elicitation no-tasks no-url no-validate requests script root sample",
		"call":                conn + " accessible args elicit format interactive json max-rounds no-elicitation no-tasks no-url no-validate no-wait open open-despite-warnings progress raw record root sample strict",
		"tools call":          conn + " accessible args elicit format interactive json max-rounds no-elicitation no-tasks no-url no-validate no-wait open open-despite-warnings progress raw record root sample strict",
		"complete":            conn + " context format prompt template",
		"completion":          "",
		"scan":                "all-profiles catalog command connect-timeout fail-on format header html profile protocol sarif-file show-secrets show-state timeout trace transport url verbose " + login,
		"grade":               "args badge badge-label check-icons command connect-timeout deadline format header html include max-rounds min-grade no-audit other-header other-identity profile protocol quiet read-only sarif-file show-secrets show-state timeout trace transport url verbose " + login,
		"inspect":             conn + " check-icons download-icons format html max-probes max-rounds min-score no-elicitation no-tasks no-url probe root sample sarif-file",
		"logging":             conn + " count format",
		"ping":                conn + " format",
		"profile add":         "assertion-file client-credentials client-id client-key client-metadata-url client-secret command connect-timeout force global header identity local no-browser protocol redirect-url scope timeout transport url",
		"profile list":        "format",
		"proxy":               "addr-file command listen listen-any max-bytes max-streams output show-state transport url",
		"profile remove":      "",
		"profile enable":      "",
		"profile disable":     "",
		"profile show":        "format",
		"prompts get":         conn + " accessible args elicit format interactive json max-rounds no-elicitation no-url no-validate open open-despite-warnings raw record root sample strict",
		"prompts list":        conn + " all cursor format json root sample",
		"resources list":      conn + " all cursor format json root sample",
		"resources read":      conn + " accessible elicit format interactive json max-rounds no-elicitation no-url no-validate open open-despite-warnings raw record root sample strict",
		"resources subscribe": conn + " count format",
		"serve":               "addr-file answers fault listen listen-any max-sessions report state-ttl",
		"resources templates": conn + " all cursor format json root sample",
		"tasks cancel":        conn + " format",
		"tasks get":           conn + " format",
		"tasks list":          conn + " format",
		"tasks wait":          conn + " accessible elicit format interactive no-elicitation no-url no-validate open open-despite-warnings root sample strict",
		"test":                conn + " accessible format html interactive jobs junit max-rounds no-elicitation no-tasks no-url no-validate progress questions record root sample script step-timeout strict update",
		"script":              "ignore lists match output",
		"tools list":          conn + " all cursor format json root sample",
		"list":                conn + " all check-icons cursor download-icons format json root sample",
		"version":             "format",
		"ui":                  conn + " listen max-rounds no-elicitation no-open no-tasks no-url no-validate root",
		"mcp-tester":          "lang verbose version", // verbose: to refuse -v without a command
	}
	ios, _, _, _ := iostreams.Test()
	seen := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Runnable() {
			path := strings.TrimPrefix(c.CommandPath(), "mcp-tester ")
			seen[path] = true
			var got []string
			c.LocalFlags().VisitAll(func(f *pflag.Flag) { got = append(got, f.Name) })
			w, ok := want[path]
			if !ok {
				t.Errorf("%s: a command this test does not know; add its flags to the table", path)
			}
			wantFlags := strings.Fields(w)
			slices.Sort(wantFlags)
			if !slices.Equal(got, wantFlags) {
				t.Errorf("%s flags:\n got %q\nwant %q", path, got, wantFlags)
			}
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(NewRootCmd(ios))
	for path := range want {
		if !seen[path] {
			t.Errorf("%s: no such command", path)
		}
	}
}

// execute runs cmd with args as the command line and returns its error;
// nothing is printed.
func execute(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	return cmd.ExecuteContext(context.Background())
}

// capture returns a runF that keeps the options it is given.
func capture[O any](got **O) func(context.Context, *O) error {
	return func(_ context.Context, o *O) error {
		*got = o
		return nil
	}
}

// flagCase is one command line of a table-driven flag test: the options
// it must produce, or the error it must give.
type flagCase[O any] struct {
	name    string
	args    []string
	want    O
	wantErr string
}

// runFlagCases runs each case through the command newCmd builds and
// compares the options its runF was given, made plain, with the case's.
func runFlagCases[O any](t *testing.T, newCmd func(*iostreams.IOStreams, func(context.Context, *O) error) *cobra.Command, cases []flagCase[O]) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			var got *O
			err := execute(newCmd(ios, capture(&got)), tc.args...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				if got != nil {
					t.Fatal("the command ran despite the error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p := plain(got); !reflect.DeepEqual(p, tc.want) {
				t.Errorf("options:\n got %+v\nwant %+v", p, tc.want)
			}
		})
	}
}

// plain is a copy of o without its streams (a field IO) and with its
// connection options (a field Conn) made plain, for comparing.
func plain[O any](o *O) O {
	p := *o
	v := reflect.ValueOf(&p).Elem()
	if f := v.FieldByName("IO"); f.IsValid() {
		f.Set(reflect.Zero(f.Type()))
	}
	if f := v.FieldByName("Conn"); f.IsValid() {
		f.Set(reflect.ValueOf(plainConn(f.Interface().(ConnOptions))))
	}
	return p
}

// plainConn is o without what the command adds on its way (the flag set,
// middleware, trace), for comparing.
func plainConn(o ConnOptions) ConnOptions {
	o.flags, o.middleware, o.recorder, o.prepared, o.profiles = nil, nil, nil, false, nil
	o.Auth.flags, o.Auth.built = nil, nil
	return o
}

// connDefaults are the connection options of a command line that gives
// only -c CMD; rounds adds --max-rounds' default.
func connDefaults(cmd string, rounds bool) ConnOptions {
	o := ConnOptions{Command: cmd, Transport: "auto", Timeout: 30 * time.Second}
	if rounds {
		o.MaxRounds = 10
	}
	return o
}
