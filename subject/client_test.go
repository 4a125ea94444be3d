package subject_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/askback/askback/subject"
)

func request(peer string, header ...string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.RemoteAddr = peer
	for _, h := range header {
		r.Header.Add("X-Forwarded-For", h)
	}
	return r
}

func TestClientAddr(t *testing.T) {
	proxies, err := subject.ParseProxies("x-forwarded-for", "10.0.0.0/8, 192.0.2.7")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		p       *subject.Proxies
		peer    string
		headers []string
		want    string
	}{
		{"peer", nil, "198.51.100.4:5123", nil, "198.51.100.4"},
		{"no proxies: header ignored", nil, "198.51.100.4:5123", []string{"203.0.113.9"}, "198.51.100.4"},
		{"untrusted peer: header ignored", proxies, "198.51.100.4:5123", []string{"203.0.113.9"}, "198.51.100.4"},
		{"trusted peer names the client", proxies, "192.0.2.7:40000", []string{"203.0.113.9"}, "203.0.113.9"},
		{"what the client wrote before is not believed", proxies, "192.0.2.7:40000", []string{"1.2.3.4, 203.0.113.9"}, "203.0.113.9"},
		{"a chain of trusted proxies", proxies, "10.1.1.1:40000", []string{"1.2.3.4, 203.0.113.9, 192.0.2.7"}, "203.0.113.9"},
		{"several header lines, last one nearest", proxies, "10.1.1.1:40000", []string{"1.2.3.4", "203.0.113.9", "10.9.9.9"}, "203.0.113.9"},
		{"trusted peer without the header", proxies, "192.0.2.7:40000", nil, "192.0.2.7"},
		{"garbage ends the reading at the last trusted proxy", proxies, "10.1.1.1:40000", []string{"203.0.113.9, garbage, 10.2.2.2"}, "10.2.2.2"},
		{"ports and brackets", proxies, "192.0.2.7:40000", []string{"[2001:db8::1]:443"}, "2001:db8::1"},
		{"v4 with a port", proxies, "192.0.2.7:40000", []string{"203.0.113.9:8080"}, "203.0.113.9"},
		{"mapped peer", proxies, "[::ffff:192.0.2.7]:40000", []string{"203.0.113.9"}, "203.0.113.9"},
		{"no peer", nil, "", nil, "invalid IP"},
	} {
		got := c.p.ClientAddr(request(c.peer, c.headers...))
		if got.String() != c.want {
			t.Errorf("%s: ClientAddr = %v, want %s", c.name, got, c.want)
		}
	}
}

func TestParseProxies(t *testing.T) {
	if p, err := subject.ParseProxies("", ""); p != nil || err != nil {
		t.Errorf("no flags: %v, %v; want nil, nil", p, err)
	}
	for _, c := range []struct{ header, trusted, want string }{
		{"X-Forwarded-For", "", "without the proxies trusted"},
		{"", "10.0.0.0/8", "without the header"},
		{"X-Forwarded-For", "10.0.0.0/8, proxy.example", `"proxy.example": not an address`},
	} {
		_, err := subject.ParseProxies(c.header, c.trusted)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseProxies(%q, %q) = %v, want an error with %q", c.header, c.trusted, err, c.want)
		}
	}
}

func TestClientOfAddr(t *testing.T) {
	for in, want := range map[string]string{
		"192.0.2.7":            "addr:192.0.2.7",
		"::ffff:192.0.2.7":     "addr:192.0.2.7",
		"2001:db8:1:2:3:4:5:6": "addr:2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::1": "addr:2001:db8:1:2::/64",
		"2001:db8:1:3::1":      "addr:2001:db8:1:3::/64",
		"fe80::1%eth0":         "addr:fe80::/64",
		"127.0.0.1":            "addr:127.0.0.1",
		"127.0.0.2":            "addr:127.0.0.2",
	} {
		if got := subject.ClientOfAddr(netip.MustParseAddr(in)); got != want {
			t.Errorf("ClientOfAddr(%s) = %q, want %q", in, got, want)
		}
	}
	if got := subject.ClientOfAddr(netip.Addr{}); got != "" {
		t.Errorf("ClientOfAddr(zero) = %q", got)
	}
}

// Share names every caller once: users as they are, clients apart from them,
// and no user can take a client's name.
func TestShare(t *testing.T) {
	bg := context.Background()
	at := subject.WithClient(bg, "addr:192.0.2.7")
	cases := []struct {
		ctx       context.Context
		user      string
		want      string
		anonymous bool
	}{
		{bg, "alice", "alice", false},
		{at, "alice", "alice", false},
		{at, "", "~addr:192.0.2.7", true},
		{bg, "", "", false},
		{bg, "~addr:192.0.2.7", "~~addr:192.0.2.7", false},
		{bg, "~", "~~", false},
	}
	seen := map[string]string{}
	for _, c := range cases {
		got := subject.Share(c.ctx, c.user)
		if got != c.want {
			t.Errorf("Share(%q, %q) = %q, want %q", subject.Client(c.ctx), c.user, got, c.want)
		}
		if subject.Anonymous(got) != c.anonymous {
			t.Errorf("Anonymous(%q) = %v", got, !c.anonymous)
		}
		if prev, dup := seen[got]; dup && prev != c.user && got != "" {
			t.Errorf("%q and %q share the name %q", prev, c.user, got)
		}
		seen[got] = c.user
	}
}

// Clients puts the client on the request's context, once: an outer layer's
// reading stands.
func TestClients(t *testing.T) {
	var got string
	h := subject.Clients(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got = subject.Client(r.Context()) }), nil)
	h.ServeHTTP(httptest.NewRecorder(), request("198.51.100.4:1"))
	if got != "addr:198.51.100.4" {
		t.Errorf("client = %q", got)
	}
	r := request("198.51.100.4:1")
	r = r.WithContext(subject.WithClient(r.Context(), "addr:203.0.113.9"))
	h.ServeHTTP(httptest.NewRecorder(), r)
	if got != "addr:203.0.113.9" {
		t.Errorf("client set outside = %q", got)
	}
}

// FuzzClientAddr: whatever the header says, the client is the peer unless the
// peer is trusted, and otherwise some address.
func FuzzClientAddr(f *testing.F) {
	f.Add("192.0.2.7:1", "203.0.113.9")
	f.Add("192.0.2.7:1", "1.2.3.4, 203.0.113.9, 10.0.0.1")
	f.Add("198.51.100.4:1", "203.0.113.9")
	f.Add("[2001:db8::1]:1", "[2001:db8::2]:80, ,,")
	f.Add("10.0.0.1:1", "unknown, 10.0.0.2")
	p, err := subject.ParseProxies("X-Forwarded-For", "10.0.0.0/8, 192.0.2.7")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, peer, header string) {
		r := request(peer, header)
		got := p.ClientAddr(r)
		pa := subject.PeerAddr(r)
		if !p.Trusts(pa) {
			if got != pa {
				t.Fatalf("untrusted peer %q: client %v", peer, got)
			}
			return
		}
		if !got.IsValid() {
			t.Fatalf("trusted peer %q, header %q: no client", peer, header)
		}
	})
}
