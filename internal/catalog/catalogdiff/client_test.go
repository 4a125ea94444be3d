package catalogdiff

import (
	"strings"
	"testing"

	"github.com/askback/askback/internal/catalog"
)

// What the new catalog's client lacked is said once a capability: lacked
// whole, with the modes the old one declared; lacked in part, the modes.
func TestLackedOnceACapability(t *testing.T) {
	for _, c := range []struct {
		old, new []string
		want     string
	}{
		{[]string{"elicitation (form, url)", "sampling"}, []string{"sampling"}, "no elicitation at all (the old one's: form, url)"},
		{[]string{"elicitation (form, url)"}, []string{"elicitation"}, "no elicitation (url)"},
		{[]string{"elicitation", "sampling", "roots"}, nil, "no elicitation at all (the old one's: form), no roots, no sampling"},
		{[]string{"elicitation (form)"}, []string{"elicitation (url)"}, "no elicitation (form)"},
		{[]string{"sampling"}, []string{"sampling", "roots"}, ""},
	} {
		got := compareClients(&catalog.Catalog{ClientCapabilities: c.old}, &catalog.Catalog{ClientCapabilities: c.new}).lacked()
		if got != c.want {
			t.Errorf("%s → %s: lacked %q, want %q", strings.Join(c.old, "; "), strings.Join(c.new, "; "), got, c.want)
		}
	}
}
