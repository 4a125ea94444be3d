package ui

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/askback/askback/internal/client/interactive"
	"github.com/askback/askback/internal/client/login"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/recording"
	"github.com/askback/askback/internal/text/credential"
	"github.com/askback/askback/internal/text/runecut"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// secretSet is every credential the page has met in this run: the
// connection's (its URL's, headers' and command's), the tokens of its
// logins, and what a client said that is a secret (credential.HideMessage:
// an argument or an answer named like one or shaped like one). Every page
// and every raw message is hidden of them on its way out, in every
// spelling credential.Hider knows, as the proxy's recordings are. It only
// grows, across connections: a call of an earlier connection still shows.
type secretSet struct {
	mu      sync.Mutex
	secrets []string
	hider   *credential.Hider
}

// maxSecrets bounds the secrets kept; past it, new ones are still hidden
// by the recording, and the page drops the oldest.
const maxSecrets = 1000

// add adds secrets (those shorter than credential.MinSecret are left out).
func (s *secretSet) add(secrets ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	added := false
	for _, x := range secrets {
		if len(x) < credential.MinSecret || contains(s.secrets, x) {
			continue
		}
		s.secrets = append(s.secrets, x)
		added = true
	}
	if !added {
		return
	}
	if n := len(s.secrets) - maxSecrets; n > 0 {
		s.secrets = append(s.secrets[:0:0], s.secrets[n:]...)
	}
	s.hider = credential.NewHider(s.secrets)
}

// hide is text with every secret of the set hidden.
func (s *secretSet) hide(text string) string {
	s.mu.Lock()
	h := s.hider
	s.mu.Unlock()
	if h == nil {
		return text
	}
	return h.Hide(text)
}

// message is a message of the wire as the recording keeps it: each
// requestState as a note of its length, the secrets of what a client said
// hidden (and learnt, to hide their echoes), then every known secret.
func (s *secretSet) message(b []byte) string {
	b = recording.HideState(b)
	b, found := credential.HideMessage(b)
	s.add(found...)
	return s.hide(string(b))
}

// secrets is the run's secret set, made on first use.
func (s *Server) secrets() *secretSet {
	s.secretsOnce.Do(func() { s.hidden = &secretSet{} })
	return s.hidden
}

// watch prepares what the page hears of a new connection before it opens:
// the credentials of its target hidden from now on, and, for a target
// that logs in, the tokens of the login hidden and its steps listed. It
// returns the secrets for the connection's recording.
func (s *Server) watch(c *conn, t Target, opts *session.Options) []string {
	var secrets []string
	if tg := opts.Target; tg != nil {
		secrets = append(credential.Secrets(tg.URL, tg.Headers), credential.CommandSecrets(tg.Command)...)
	} else {
		secrets = append(credential.Secrets(t.URL, nil), credential.CommandSecrets(t.Command)...)
	}
	s.secrets().add(secrets...)
	if opts.Target == nil || opts.Target.Login == nil {
		return secrets
	}
	// The login is the connection's own (the command's settings, made
	// for this target), so its hooks are set before it is used.
	l := opts.Target.Login
	onToken := l.OnToken
	l.OnToken = func(tokens ...string) {
		if onToken != nil {
			onToken(tokens...)
		}
		s.secrets().add(tokens...)
		if c.rec != nil {
			c.rec.AddSecrets(tokens...)
		}
	}
	l.OnStep = func(st login.Step) {
		s.mu.Lock()
		defer s.mu.Unlock()
		st.URL, st.Status, st.Err = trim(st.URL, maxBody), trim(st.Status, maxLine), trim(st.Err, maxBody)
		c.steps = keepNewest(append(c.steps, loginStep{Time: s.opts.Now(), Step: st}), maxSteps)
		s.notify()
	}
	return secrets
}

// loginStep is a step of an OAuth login, as the page lists it.
type loginStep struct {
	Time time.Time
	login.Step
}

// maxSteps bounds the login steps a connection keeps.
const maxSteps = 200

// maxWaiting bounds the requests the log pairs with their answers.
const maxWaiting = 1000

// sentAt is a request waiting for its answer: its method, and when it
// crossed.
type sentAt struct {
	method string
	at     time.Time
}

// describe is msg as the message log shows it (b its encoding): its kind,
// its method (for an answer, its request's), the time since its request,
// and its text hidden as the recording keeps it. Hold s.mu.
func (s *Server) describe(c *conn, sent bool, msg jsonrpc.Message, b []byte) message {
	now := s.opts.Now()
	m := message{Sent: sent, Time: now, Size: len(b)}
	text := s.secrets().message(b)
	m.Text = runecut.Prefix(text, maxBody)
	m.Cut = len(m.Text) != len(text)
	if c.waiting == nil {
		c.waiting = map[string]sentAt{}
	}
	switch msg := msg.(type) {
	case *jsonrpc.Request:
		m.Method, m.ID, m.Kind = msg.Method, idText(msg.ID), "notification"
		if msg.ID.IsValid() {
			m.Kind = "request"
			if len(c.waiting) >= maxWaiting {
				clear(c.waiting) // answers that never came
			}
			c.waiting[waitKey(sent, m.ID)] = sentAt{method: msg.Method, at: now}
		}
	case *jsonrpc.Response:
		m.ID, m.Kind = idText(msg.ID), "response"
		if msg.Error != nil {
			m.Kind = "error"
		}
		// The answer goes the other way from its request.
		if r, ok := c.waiting[waitKey(!sent, m.ID)]; ok {
			delete(c.waiting, waitKey(!sent, m.ID))
			m.Method, m.Took = r.method, now.Sub(r.at).Round(time.Microsecond).String()
		}
	}
	return m
}

func waitKey(sent bool, id string) string { return strconv.FormatBool(sent) + " " + id }

// message is one JSON-RPC message as the page shows it.
type message struct {
	Seq    int
	Sent   bool // client to server
	Time   time.Time
	Kind   string // request, notification, response or error
	Method string // an answer's is its request's, when the log saw it
	ID     string
	Took   string // an answer's time since its request
	Size   int
	Text   string // as the recording keeps it, cut to maxBody
	Cut    bool
}

// Direction is the way the message went, as the page says it.
func (m message) Direction() string {
	if m.Sent {
		return "client → server"
	}
	return "server → client"
}

// messageLog keeps the last messages of the wire, in order.
type messageLog struct {
	max     int
	seq     int
	dropped int
	list    []message
}

func newMessageLog(max int) *messageLog { return &messageLog{max: max} }

func (l *messageLog) add(m message) {
	l.seq++
	m.Seq = l.seq
	if len(l.list) >= l.max {
		n := copy(l.list, l.list[1:])
		l.list = l.list[:n]
		l.dropped++
	}
	l.list = append(l.list, m)
}

// find is the message numbered seq, if the log still keeps it.
func (l *messageLog) find(seq int) (message, bool) {
	i := sort.Search(len(l.list), func(i int) bool { return l.list[i].Seq >= seq })
	if i < len(l.list) && l.list[i].Seq == seq {
		return l.list[i], true
	}
	return message{}, false
}

// logFilter is what the person chose to see of the message log.
type logFilter struct {
	Dir     string // "", "sent" or "received"
	Method  string // "" for every method
	Methods []string
	Shown   int
	Total   int
}

func (f *logFilter) keeps(m message) bool {
	switch {
	case f.Dir == "sent" && !m.Sent, f.Dir == "received" && m.Sent:
		return false
	case f.Method != "" && m.Method != f.Method:
		return false
	}
	return true
}

func (s *Server) trafficRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /log", s.logPage)
	mux.HandleFunc("GET /log/{seq}", s.rawMessage)
}

func (s *Server) logPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := &logFilter{Dir: q.Get("dir"), Method: strings.TrimSpace(q.Get("method"))}
	if f.Dir != "sent" && f.Dir != "received" {
		f.Dir = ""
	}
	s.mu.Lock()
	v := s.base("Messages")
	seen := map[string]bool{}
	for _, m := range s.msgs.list {
		if m.Method != "" && !seen[m.Method] {
			seen[m.Method] = true
			f.Methods = append(f.Methods, m.Method)
		}
		if f.keeps(m) {
			v.Msgs = append(v.Msgs, m)
		}
	}
	f.Shown, f.Total = len(v.Msgs), len(s.msgs.list)
	v.Dropped = s.msgs.dropped
	s.mu.Unlock()
	if f.Method != "" && !seen[f.Method] {
		f.Methods = append(f.Methods, f.Method)
	}
	sort.Strings(f.Methods)
	v.Filter = f
	sort.SliceStable(v.Msgs, func(i, j int) bool { return v.Msgs[i].Seq > v.Msgs[j].Seq })
	s.render(w, "log", v)
}

// rawMessage serves one message of the log as JSON, hidden as the
// recording keeps it: a page of its own that a person selects and copies
// whole, or saves. The page runs no script, so no button can copy for
// them; served as application/json with nosniff and the page's CSP, the
// browser shows it as text and never reads it as a page.
func (s *Server) rawMessage(w http.ResponseWriter, r *http.Request) {
	seq, err := strconv.Atoi(r.PathValue("seq"))
	s.mu.Lock()
	m, ok := s.msgs.find(seq)
	s.mu.Unlock()
	if err != nil || !ok {
		http.Error(w, "mcp-tester ui: the page no longer keeps this message; every message is in the session's recording", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`inline; filename="message-%d.json"`, m.Seq))
	text := s.secrets().hide(m.Text)
	if m.Cut {
		// Cut, it is no longer JSON: plain text that says where it ends.
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		text += fmt.Sprintf("\n… cut at %d of %d bytes: the whole message is in the session's recording\n", maxBody, m.Size)
	}
	w.Write([]byte(text))
}

// withoutSecrets is what a person entered, to show again after a refused
// answer, less what they typed into a field that looks like it asks for a
// secret: the page never writes a secret back into itself.
func withoutSecrets(fields []*interactive.Field, vals []interactive.Value) []interactive.Value {
	out := append([]interactive.Value(nil), vals...)
	for i, f := range fields {
		if i < len(out) && f.Warning != "" {
			out[i].Text = ""
		}
	}
	return out
}
