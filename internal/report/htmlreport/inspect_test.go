package htmlreport_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/askback/askback/internal/checks/inspect"
	"github.com/askback/askback/internal/report/htmlreport"
)

// TestInspectPageNamesProbing: the page's advice to probe names probing as
// inspect does, or as the report's Name says (a command line's flag).
func TestInspectPageNamesProbing(t *testing.T) {
	flag := func(o inspect.Option) string {
		if o == inspect.OptionProbe {
			return "--probe"
		}
		return ""
	}
	for _, c := range []struct {
		nameOf func(inspect.Option) string
		want   string
	}{
		{nil, "no description says a tool asks; probing (Server.Probes) calls read-only tools to find out)."},
		{flag, "no description says a tool asks; --probe calls read-only tools to find out)."},
	} {
		var b bytes.Buffer
		if err := htmlreport.WriteInspect(&b, fixedMeta, &inspect.Report{Server: "demo", Name: c.nameOf}, nil, nil); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("the page does not say %q:\n%s", c.want, b.String())
		}
	}
}
