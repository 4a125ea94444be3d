package urlcheck

import (
	"strings"
	"testing"
)

// TestPlace: a link to this machine or to a private network is warned
// about when the server that sent it is not there, and only then.
func TestPlace(t *testing.T) {
	remote := ServerAt("https://mcp.example.com/mcp")
	lan := ServerAt("http://192.168.1.20:8080/mcp")
	cases := []struct {
		link string
		from Server
		want Code // "" for neither warning
		text string
	}{
		// A server elsewhere pointing at this machine, in every spelling.
		{"http://127.0.0.1:631/admin/?op=purge-jobs", remote, ThisMachine, "the link points at this machine (127.0.0.1), but the server is at mcp.example.com, not on this machine"},
		{"http://localhost:631/", remote, ThisMachine, "(localhost)"},
		{"http://localhost.:631/", remote, ThisMachine, ""},
		{"http://app.localhost:631/", remote, ThisMachine, ""},
		{"http://[::1]:9000/", remote, ThisMachine, "(::1)"},
		{"http://[::ffff:7f00:1]/", remote, ThisMachine, ""},
		{"http://127.1/", remote, ThisMachine, ""},
		{"http://2130706433/", remote, ThisMachine, ""},
		{"http://0x7f.1/", remote, ThisMachine, ""},
		{"http://127.0.0.1./", remote, ThisMachine, ""},
		{"http://0.0.0.0:8888/", remote, ThisMachine, ""},
		{"http://0/", remote, ThisMachine, ""},
		{"http://[::]/", remote, ThisMachine, ""},
		{"https://localhost/", remote, ThisMachine, ""},
		{"http://localhost:631/", lan, ThisMachine, "the server is at 192.168.1.20, not on this machine"},
		{"http://localhost:631/", Server{}, ThisMachine, "the server is not known to be on this machine"},
		// ... or at a private network it is not on.
		{"http://10.0.0.1/", remote, PrivateNetwork, "the link points at a private network address (10.0.0.1), but the server is at mcp.example.com, not on that network"},
		{"http://172.16.5.4/", remote, PrivateNetwork, ""},
		{"http://192.168.0.1/", remote, PrivateNetwork, ""},
		{"http://169.254.169.254/latest/meta-data/", remote, PrivateNetwork, ""},
		{"http://100.100.1.1/", remote, PrivateNetwork, ""},
		{"http://[fd00::1]/", remote, PrivateNetwork, ""},
		{"http://[fe80::1]/", remote, PrivateNetwork, ""},
		{"http://0xc0.0xa8.1.1/", remote, PrivateNetwork, ""},
		{"http://printer.local/", remote, PrivateNetwork, "a name of a private network (printer.local)"},
		{"http://router.home.arpa/", remote, PrivateNetwork, ""},
		{"http://jenkins.internal/", remote, PrivateNetwork, ""},
		{"http://10.0.0.1/", lan, PrivateNetwork, "the server is at 192.168.1.20, not on that network"},
		// A server on this machine: its own local page, as before.
		{"http://127.0.0.1:631/", LocalServer(), "", ""},
		{"http://localhost:3000/", ServerAt("http://localhost:3000/mcp"), "", ""},
		{"http://localhost:3000/", ServerAt("http://127.0.0.1:3000/mcp"), "", ""},
		{"http://localhost:3000/", ServerAt("http://[::1]:3000/mcp"), "", ""},
		{"http://localhost:3000/", ServerAt("http://0.0.0.0:3000/mcp"), "", ""},
		{"http://10.0.0.1/", LocalServer(), "", ""},
		{"http://printer.local/", LocalServer(), "", ""},
		// A server on that network.
		{"http://192.168.1.1/", lan, "", ""},
		{"http://printer.local/", lan, "", ""},
		{"http://10.1.2.3/", ServerAt("https://mcp.corp.internal/mcp"), "", ""},
		// Anywhere else is not this machine's business.
		{"https://example.com/", remote, "", ""},
		{"https://8.8.8.8/", remote, "", ""},
		{"https://localhost.evil.example/", remote, "", ""},
		{"https://127.0.0.1.nip.io/", remote, "", ""},
		{"https://local.example/", remote, "", ""},
	}
	for _, c := range cases {
		r, err := Check(c.link, c.from)
		if err != nil {
			t.Errorf("Check(%q): %v", c.link, err)
			continue
		}
		for _, code := range []Code{ThisMachine, PrivateNetwork} {
			if has(r, code) != (code == c.want) {
				t.Errorf("Check(%q, %+v): %s warning %v, want %v: %+v", c.link, c.from, code, has(r, code), code == c.want, r.Warnings)
			}
		}
		if c.text == "" {
			continue
		}
		if msg := message(r, c.want); !strings.Contains(msg, c.text) {
			t.Errorf("Check(%q, %+v): the warning %q does not say %q", c.link, c.from, msg, c.text)
		}
	}
}

func message(r Report, c Code) string {
	for _, w := range r.Warnings {
		if w.Code == c {
			return w.Message
		}
	}
	return ""
}
