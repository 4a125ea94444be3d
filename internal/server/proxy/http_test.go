package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/askback/askback/internal/recording"
)

// syncBuffer is a recording's file, read once the proxy is done.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// rig is a proxy in front of a test server.
type rig struct {
	t       *testing.T
	server  *httptest.Server
	proxy   *httptest.Server
	handler *Handler
	file    *syncBuffer
	rec     *recording.Writer
}

func newRig(t *testing.T, server http.Handler, mod func(*HTTPOptions)) *rig {
	t.Helper()
	r := &rig{t: t, file: &syncBuffer{}}
	r.server = httptest.NewServer(server)
	t.Cleanup(r.server.Close)
	u, _ := url.Parse(r.server.URL + "/mcp")
	var err error
	r.rec, err = recording.NewWriter(r.file, recording.Header{Transport: recording.TransportHTTP, Server: u.String()}, recording.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o := HTTPOptions{Server: u, Rec: r.rec}
	if mod != nil {
		mod(&o)
	}
	r.handler = NewHandler(o)
	r.proxy = httptest.NewServer(r.handler)
	t.Cleanup(r.proxy.Close)
	return r
}

// recording returns what was recorded so far, read back.
func (r *rig) recording() *recording.Recording {
	r.t.Helper()
	got, err := recording.Read(strings.NewReader(r.file.String()), recording.ReadOptions{})
	if err != nil {
		r.t.Fatalf("the recording does not read: %v\n%s", err, r.file.String())
	}
	return got
}

func (r *rig) post(body string, header http.Header) *http.Response {
	r.t.Helper()
	req, _ := http.NewRequest("POST", r.proxy.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	return resp
}

// Both sides get exactly the bytes the other sent, headers included; the
// recording has each message with its HTTP facts, and neither the bearer
// token nor the session id.
func TestForwardJSONByteForByte(t *testing.T) {
	const call = "{\"jsonrpc\":\"2.0\",\"id\":\"x-7\",  \"method\":\"tools/call\",\"params\":{\"name\":\"deploy\",\"arguments\":{\"s\":\"\\u00e9\u202e\"}}}\n"
	const answer = "{ \"jsonrpc\":\"2.0\", \"id\":\"x-7\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"ok \\u001b[31m\"}]} }"
	var got []byte
	var gotHeader http.Header
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		got, _ = io.ReadAll(req.Body)
		gotHeader = req.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Mcp-Session-Id", "session-0123456789")
		w.Header().Set("X-Custom", "kept")
		io.WriteString(w, answer)
	}), nil)
	resp := r.post(call, http.Header{
		"Authorization":        {"Bearer tok-abcdefghijklmnop"},
		"Content-Type":         {"application/json"},
		"Accept":               {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {"2025-11-25"},
		"Mcp-Session-Id":       {"session-0123456789"},
		"Cookie":               {"sid=cookie-value-42"},
	})
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(got) != call {
		t.Errorf("the server got\n%q\nthe client sent\n%q", got, call)
	}
	if string(body) != answer {
		t.Errorf("the client got\n%q\nthe server sent\n%q", body, answer)
	}
	for _, h := range []string{"Authorization", "Mcp-Protocol-Version", "Mcp-Session-Id", "Cookie", "Accept"} {
		if gotHeader.Get(h) == "" {
			t.Errorf("the server did not get %s", h)
		}
	}
	if gotHeader.Get("Accept-Encoding") != "" && gotHeader.Get("Accept-Encoding") != "identity" {
		t.Errorf("Accept-Encoding %q reached the server: answers must come uncompressed to be recorded", gotHeader.Get("Accept-Encoding"))
	}
	if resp.Header.Get("X-Custom") != "kept" || resp.Header.Get("Mcp-Session-Id") != "session-0123456789" {
		t.Errorf("the client's headers: %v", resp.Header)
	}
	rec := r.recording()
	if len(rec.Entries) != 2 {
		t.Fatalf("%d entries:\n%s", len(rec.Entries), r.file.String())
	}
	c, s := rec.Entries[0], rec.Entries[1]
	if c.Dir != recording.ClientToServer || s.Dir != recording.ServerToClient {
		t.Errorf("directions %s %s", c.Dir, s.Dir)
	}
	// A recording holds each message compacted (internal/recording).
	if string(c.Message) != compact(call) || string(s.Message) != compact(answer) {
		t.Errorf("recorded\n%s\n%s", c.Message, s.Message)
	}
	if h := c.HTTP; h.Method != "POST" || h.Path != "/mcp" || h.Stream != "post-1" || h.Session != "s1" || h.ProtocolVersion != "2025-11-25" || h.Status != 0 {
		t.Errorf("request facts %+v", h)
	}
	if h := s.HTTP; h.Status != 200 || h.ContentType != "application/json" || h.Stream != "post-1" || h.Session != "s1" {
		t.Errorf("answer facts %+v", h)
	}
	for _, secret := range []string{"tok-abcdefghijklmnop", "session-0123456789", "cookie-value-42"} {
		if strings.Contains(r.file.String(), secret) {
			t.Errorf("the recording holds %q", secret)
		}
	}
}

// An event stream reaches the client event by event as the server sends
// it (the server sends the next only once the client has read the one
// before), byte for byte; each message is recorded with its event id,
// before the client has it.
func TestForwardStreamEventByEvent(t *testing.T) {
	events := []string{
		"id: 1\ndata: \n\n", // a priming event
		": keep-alive\n\n",
		"id: 2\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"elicitation/create\",\"params\":{\"message\":\"Where?\"}}\r\n\r\n",
		"id: 3\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\n" + "data: \"params\":{\"progress\":1}}\n\n",
		"id: 4\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\n",
	}
	next := make(chan struct{})
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		for i, e := range events {
			if i > 0 {
				<-next
			}
			io.WriteString(w, e)
			w.(http.Flusher).Flush()
		}
	}), nil)
	resp := r.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy"}}`, nil)
	defer resp.Body.Close()
	var whole bytes.Buffer
	br := bufio.NewReader(resp.Body)
	for i, e := range events {
		want := len(e)
		buf := make([]byte, want)
		if _, err := io.ReadFull(br, buf); err != nil {
			t.Fatalf("event %d: %v (the proxy held it back?)", i, err)
		}
		if string(buf) != e {
			t.Fatalf("event %d: got %q, want %q", i, buf, e)
		}
		whole.Write(buf)
		if i < len(events)-1 {
			next <- struct{}{}
		}
	}
	if rest, _ := io.ReadAll(br); len(rest) != 0 {
		t.Errorf("after the events: %q", rest)
	}
	rec := r.recording()
	var ids, methods []string
	for _, e := range rec.Entries[1:] {
		ids = append(ids, e.HTTP.EventID)
		var m struct {
			Method string `json:"method"`
		}
		json.Unmarshal(e.Message, &m)
		methods = append(methods, m.Method)
		if e.HTTP.ContentType != "text/event-stream" || e.HTTP.Stream != "post-1" {
			t.Errorf("facts %+v", e.HTTP)
		}
	}
	if fmt.Sprint(ids) != "[2 3 4]" || fmt.Sprint(methods) != "[elicitation/create notifications/progress ]" {
		t.Errorf("recorded ids %v methods %v:\n%s", ids, methods, r.file.String())
	}
}

// The GET stream, resumed with Last-Event-ID, and a DELETE: the header
// reaches the server, the stream's opening and the DELETE are recorded as
// HTTP exchanges.
func TestGetStreamAndDelete(t *testing.T) {
	var lastID string
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		switch req.Method {
		case "GET":
			lastID = req.Header.Get("Last-Event-ID")
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "id: 8\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n")
		case "DELETE":
			w.WriteHeader(http.StatusNoContent)
		}
	}), nil)
	req, _ := http.NewRequest("GET", r.proxy.URL+"/mcp", nil)
	req.Header.Set("Last-Event-ID", "7")
	req.Header.Set("Mcp-Session-Id", "abcdef-session")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(resp.Body)
	resp.Body.Close()
	req, _ = http.NewRequest("DELETE", r.proxy.URL+"/mcp", nil)
	req.Header.Set("Mcp-Session-Id", "abcdef-session")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if lastID != "7" || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("Last-Event-ID %q, DELETE %d", lastID, resp.StatusCode)
	}
	rec := r.recording()
	if len(rec.Entries) != 3 {
		t.Fatalf("%d entries:\n%s", len(rec.Entries), r.file.String())
	}
	open, msg, del := rec.Entries[0], rec.Entries[1], rec.Entries[2]
	if open.Event != recording.EventHTTP || open.HTTP.Method != "GET" || open.HTTP.LastEventID != "7" || open.HTTP.Stream != "get-1" || open.HTTP.Session != "s1" {
		t.Errorf("GET: %+v %+v", open, open.HTTP)
	}
	if !msg.IsMessage() || msg.HTTP.EventID != "8" || msg.HTTP.Stream != "get-1" {
		t.Errorf("message: %+v %+v", msg, msg.HTTP)
	}
	if del.Event != recording.EventHTTP || del.HTTP.Method != "DELETE" || del.HTTP.Status != 204 || del.HTTP.Session != "s1" {
		t.Errorf("DELETE: %+v %+v", del, del.HTTP)
	}
	if strings.Contains(r.file.String(), "abcdef-session") {
		t.Error("the session id is in the recording")
	}
}

// A server that is not there: the client gets 502 with a JSON-RPC error
// for its request's id, naming the proxy; the recording says the server
// is gone.
func TestServerUnreachable(t *testing.T) {
	r := newRig(t, http.NotFoundHandler(), nil)
	r.server.Close()
	resp := r.post(`{"jsonrpc":"2.0","id":42,"method":"tools/list"}`, nil)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Errorf("status %d", resp.StatusCode)
	}
	var e struct {
		ID    int `json:"id"`
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.ID != 42 || !strings.Contains(e.Error.Message, "mcp-tester proxy: the server at http://127.0.0.1:") {
		t.Errorf("body %s", body)
	}
	rec := r.recording()
	if last := rec.Entries[len(rec.Entries)-1]; last.Event != recording.EventServerGone || !strings.Contains(last.Note, "did not answer") {
		t.Errorf("last entry %+v", last)
	}
	if r.handler.ServerGone() == "" {
		t.Error("ServerGone is empty")
	}
}

// A server that breaks its stream off mid-question: the client's stream
// breaks too (not a stream that ended in order), and the recording says
// the server went.
func TestServerBreaksStream(t *testing.T) {
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"elicitation/create\",\"params\":{}}\n\n")
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}), nil)
	resp := r.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`, nil)
	_, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil {
		t.Error("the client's stream ended in order; it must break as the server's did")
	}
	rec := r.recording()
	last := rec.Entries[len(rec.Entries)-1]
	if last.Event != recording.EventServerGone || !strings.Contains(last.Note, "post-1 broke") {
		t.Errorf("last entry %+v\n%s", last, r.file.String())
	}
}

// A client that goes away mid-question: the server's stream is closed
// (its request's context ends) and the recording says the client went.
func TestClientGoesMidQuestion(t *testing.T) {
	closed := make(chan struct{})
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"elicitation/create\",\"params\":{}}\n\n")
		w.(http.Flusher).Flush()
		<-req.Context().Done()
		close(closed)
	}), nil)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", r.proxy.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	if !strings.Contains(line, "elicitation/create") {
		t.Fatalf("first line %q", line)
	}
	cancel()
	resp.Body.Close()
	<-closed // the server's stream was closed
	r.proxy.Config.Close()
	r.proxy.Close()
	rec := r.recording()
	last := rec.Entries[len(rec.Entries)-1]
	if last.Event != recording.EventClientGone || !strings.Contains(last.Note, "post-1") {
		t.Errorf("last entry %+v\n%s", last, r.file.String())
	}
}

// What a login needs passes, and the server's own address in it names
// the proxy: the protected resource metadata's resource, the
// resource_metadata of a challenge, a redirect's Location. Everything else
// in them stays byte for byte.
func TestLoginAddressesNameTheProxy(t *testing.T) {
	var base string
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		switch req.URL.Path {
		case "/.well-known/oauth-protected-resource/mcp":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"resource" : "%s/mcp","authorization_servers":["%s"],"note":"resource %s/mcp"}`, base, base, base)
		case "/mcp":
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="invalid_token", resource_metadata="%s/.well-known/oauth-protected-resource/mcp", scope="mcp"`, base))
			w.Header().Add("WWW-Authenticate", fmt.Sprintf(`DPoP resource_metadata=%s/x, algs="ES256"`, base))
			http.Error(w, "unauthorized", http.StatusUnauthorized)
		case "/old":
			http.Redirect(w, req, base+"/mcp?a=1", http.StatusTemporaryRedirect)
		}
	}), nil)
	base = r.server.URL
	pub := r.proxy.URL
	resp := r.post(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`, nil)
	resp.Body.Close()
	want := []string{
		fmt.Sprintf(`Bearer error="invalid_token", resource_metadata="%s/.well-known/oauth-protected-resource/mcp", scope="mcp"`, pub),
		fmt.Sprintf(`DPoP resource_metadata=%s/x, algs="ES256"`, pub),
	}
	if got := resp.Header.Values("WWW-Authenticate"); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("challenges\n%q\nwant\n%q", got, want)
	}
	resp, err := http.Get(pub + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	wantBody := fmt.Sprintf(`{"resource" : "%s/mcp","authorization_servers":["%s"],"note":"resource %s/mcp"}`, pub, base, base)
	if string(body) != wantBody {
		t.Errorf("metadata\n%s\nwant\n%s", body, wantBody)
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err = noFollow.Get(pub + "/old")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); loc != pub+"/mcp?a=1" {
		t.Errorf("Location %q", loc)
	}
	rec := r.recording()
	var notes []string
	for _, e := range rec.Entries {
		if e.Event == recording.EventHTTP {
			notes = append(notes, fmt.Sprint(e.HTTP.Status))
		}
	}
	if fmt.Sprint(notes) != "[401 200 307]" {
		t.Errorf("HTTP entries %v:\n%s", notes, r.file.String())
	}
}

// The endpoint event of the 2024-11-05 transport names the proxy when it
// named the server's origin; a relative one passes as it is; the session
// it names is labelled, and its id hidden.
func TestLegacyEndpoint(t *testing.T) {
	for _, c := range []struct {
		name, endpoint string
		rewritten      bool
	}{
		{"absolute", "%s/message?sessionId=legacy-session-1", true},
		{"relative", "/message?sessionId=legacy-session-1", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var base string
			r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				if req.Method == "POST" {
					w.WriteHeader(http.StatusAccepted)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				ep := c.endpoint
				if strings.Contains(ep, "%s") {
					ep = fmt.Sprintf(ep, base)
				}
				fmt.Fprintf(w, "event: endpoint\ndata: %s\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n", ep)
			}), func(o *HTTPOptions) { o.SSE = true })
			base = r.server.URL
			resp, err := http.Get(r.proxy.URL + "/sse")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			wantEP := "/message?sessionId=legacy-session-1"
			if c.rewritten {
				wantEP = r.proxy.URL + wantEP
			}
			want := "event: endpoint\ndata: " + wantEP + "\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n"
			if string(body) != want {
				t.Errorf("stream\n%q\nwant\n%q", body, want)
			}
			resp, err = http.Post(r.proxy.URL+"/message?sessionId=legacy-session-1", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			rec := r.recording()
			if strings.Contains(r.file.String(), "legacy-session-1") {
				t.Errorf("the session id is in the recording:\n%s", r.file.String())
			}
			post := rec.Entries[len(rec.Entries)-2]
			if post.Dir != recording.ClientToServer || post.HTTP.Session != "s1" {
				t.Errorf("the POST: %+v %+v", post, post.HTTP)
			}
		})
	}
}

// A request addressed to another host than loopback (a page whose name
// was rebound to 127.0.0.1) is refused before it reaches the server.
func TestRefusesOtherHosts(t *testing.T) {
	reached := false
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) { reached = true }), nil)
	req, _ := http.NewRequest("POST", r.proxy.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Host = "attacker.example:8080"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || reached || !strings.Contains(string(body), "attacker.example") {
		t.Errorf("status %d, reached %v: %s", resp.StatusCode, reached, body)
	}
	for _, host := range []string{"localhost:1", "127.0.0.1:9", "[::1]:80", "127.1.2.3"} {
		if !loopbackHost(host) {
			t.Errorf("%s refused", host)
		}
	}
	for _, host := range []string{"localhost.attacker.example", "10.0.0.1:80", "0.0.0.0", ""} {
		if loopbackHost(host) {
			t.Errorf("%s taken", host)
		}
	}
}

// One exchange more than MaxStreams is answered 503 by the proxy; a body
// over MaxMessage is refused 413; neither reaches the server.
func TestBounds(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 4)
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		started <- struct{}{}
		<-release
	}), func(o *HTTPOptions) { o.MaxStreams = 1 })
	done := make(chan struct{})
	go func() {
		resp := r.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil)
		resp.Body.Close()
		close(done)
	}()
	<-started
	resp := r.post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("the second exchange: %d", resp.StatusCode)
	}
	close(release)
	<-done
	big := `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"` + strings.Repeat("a", MaxMessage) + `"}}`
	resp = r.post(big, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || len(started) != 0 {
		t.Errorf("a body over the bound: %d, reached the server %d times", resp.StatusCode, len(started))
	}
}

// A batch is recorded as its messages.
func TestBatchRecordedAsMessages(t *testing.T) {
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}}]`)
	}), nil)
	resp := r.post(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`, nil)
	resp.Body.Close()
	if n := len(r.recording().Entries); n != 4 {
		t.Errorf("%d entries, want 4:\n%s", n, r.file.String())
	}
}

func FuzzRewrite(f *testing.F) {
	f.Add(`{"resource":"http://127.0.0.1:1/mcp","x":1}`, `Bearer resource_metadata="http://127.0.0.1:1/.well-known/x", scope="a"`)
	f.Add(`{"a":{"resource":"x"},"resource" :"http://127.0.0.1:1"}`, `resource_metadata=http://127.0.0.1:1/y`)
	f.Add(`[]`, `RESOURCE_METADATA="`)
	server, _ := url.Parse("http://127.0.0.1:1/mcp")
	h := NewHandler(HTTPOptions{Server: server})
	x := &exchange{public: &url.URL{Scheme: "http", Host: "127.0.0.1:2"}}
	f.Fuzz(func(t *testing.T, doc, challenge string) {
		out, _, to, ok := h.rewriteResource(x, []byte(doc))
		if ok {
			if json.Valid([]byte(doc)) && !json.Valid(out) {
				t.Fatalf("rewrote %s into %s", doc, out)
			}
			if !strings.HasPrefix(to, "http://127.0.0.1:2") {
				t.Fatalf("rewrote to %s", to)
			}
		}
		got := h.rewriteChallenge(x, challenge)
		if !strings.Contains(challenge, "127.0.0.1:1") && got != challenge {
			t.Fatalf("changed %q into %q", challenge, got)
		}
	})
}

func compact(s string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		panic(err)
	}
	return b.String()
}

// A Streamable HTTP GET stream is never held back: the comments a server
// keeps it alive with reach the client as they come.
func TestGetStreamKeepAliveNotHeld(t *testing.T) {
	read := make(chan struct{})
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, ": keep-alive\n\n")
		w.(http.Flusher).Flush()
		<-read
	}), nil)
	resp, err := http.Get(r.proxy.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, len(": keep-alive\n\n"))
	if _, err := io.ReadFull(resp.Body, buf); err != nil || string(buf) != ": keep-alive\n\n" {
		t.Errorf("got %q, %v", buf, err)
	}
	close(read)
}

// A page of another site, open in the person's browser, posts a message to
// the proxy on loopback as plain text (no preflight): refused, the server
// never reached, as a message from another origin is; the same message
// from the tester's own client goes through.
func TestRefusesCrossSiteRequests(t *testing.T) {
	reached := 0
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		reached++
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}), nil)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{"environment":"production"}}}`
	for _, c := range []struct {
		name   string
		header http.Header
		status int
	}{
		{"text/plain", http.Header{"Content-Type": {"text/plain;charset=UTF-8"}}, http.StatusUnsupportedMediaType},
		{"form", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, http.StatusUnsupportedMediaType},
		{"other origin", http.Header{"Origin": {"https://attacker.example"}}, http.StatusForbidden},
		{"cross-site fetch", http.Header{"Sec-Fetch-Site": {"cross-site"}}, http.StatusForbidden},
	} {
		resp := r.post(call, c.header)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || reached != 0 {
			t.Errorf("%s: status %d (want %d), server reached %d times: %s", c.name, resp.StatusCode, c.status, reached, body)
		}
	}
	resp := r.post(call, http.Header{"Origin": {r.proxy.URL}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || reached != 1 {
		t.Errorf("the same-origin request: status %d, server reached %d times", resp.StatusCode, reached)
	}
	if strings.Contains(r.file.String(), "production") && strings.Count(r.file.String(), "tools/call") > 1 {
		t.Errorf("a refused request was recorded:\n%s", r.file.String())
	}
}

// Only credentials are hidden: a header's value that is the message's own
// content (a task id in Mcp-Name, a request id copied into a header of
// the client's own) is recorded as the message holds it, while a
// generated-looking value of such a header that the message does not hold
// (a tenant's token), the bearer token and the session id are hidden
// wherever the server echoes them.
func TestOnlyCredentialsHidden(t *testing.T) {
	const task = "NF6H4GHUV4MGVX6RXCHUA5HGWC"
	const reqID = "7f3c9a0b2e4d4c1e9b8a6f5d"
	const tenant = "tn0a1b2c3d4e5f6a7b8c9d0e"
	call := `{"jsonrpc":"2.0","id":"` + reqID + `","method":"tasks/get","params":{"taskId":"` + task + `"}}`
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%q,"result":{"taskId":%q,"status":"working","statusMessage":"for %s, as %s in %s"}}`,
			reqID, task, req.Header.Get("X-Tenant"), req.Header.Get("Authorization"), req.Header.Get("Mcp-Session-Id"))
	}), nil)
	resp := r.post(call, http.Header{
		"Authorization":  {"Bearer tok-abcdefghijklmnop"},
		"Mcp-Session-Id": {"session-0123456789"},
		"Mcp-Method":     {"tasks/get"},
		"Mcp-Name":       {task},
		"X-Request-Id":   {reqID},
		"X-Tenant":       {tenant},
	})
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	rec := r.file.String()
	for _, kept := range []string{`"taskId":"` + task + `"`, `"id":"` + reqID + `"`} {
		if strings.Count(rec, kept) != 2 {
			t.Errorf("%s is not in both messages:\n%s", kept, rec)
		}
	}
	for _, secret := range []string{tenant, "tok-abcdefghijklmnop", "session-0123456789"} {
		if strings.Contains(rec, secret) {
			t.Errorf("the recording holds %q:\n%s", secret, rec)
		}
	}
}

// A generated-looking value of a header of the client's own that a
// request without it took for a secret (the tester's first probe holds
// no arguments) is content once a request holds it: the arguments that
// carry it are recorded as sent.
func TestGuessedSecretHeldLaterIsContent(t *testing.T) {
	const tenant = "7f3c9a2e8b1d4f60"
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}), nil)
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{"service":"` + tenant + `"}}}`,
	} {
		resp := r.post(body, http.Header{"X-Tenant": {tenant}})
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if rec := r.file.String(); !strings.Contains(rec, `"service":"`+tenant+`"`) {
		t.Errorf("the arguments that hold the header's value are hidden:\n%s", rec)
	}
}

// A POST's event stream that says nothing for a while (a long tool call):
// the client has the answer's headers before its first event, as it has
// them from the server itself; a stream that ends empty reaches it as one.
func TestStreamHeadersBeforeFirstEvent(t *testing.T) {
	release := make(chan struct{})
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Server", "here")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		if strings.Contains(req.URL.RawQuery, "empty") {
			return
		}
		<-release // held until the client has the headers
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n")
	}), nil)
	resp := r.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`, nil) // returns with the headers
	close(release)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.Header.Get("X-Server") != "here" || !strings.Contains(string(body), `"result"`) {
		t.Errorf("answer %d %v %q: %v", resp.StatusCode, resp.Header, body, err)
	}
	req, _ := http.NewRequest("POST", r.proxy.URL+"/mcp?empty", strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || len(body) != 0 || resp.Header.Get("Content-Type") != "text/event-stream" || len(resp.TransferEncoding) == 0 {
		t.Errorf("the empty stream: %d %v %v %q: %v", resp.StatusCode, resp.Header, resp.TransferEncoding, body, err)
	}
}
