//lint:file-ignore SA1019 sampling is deprecated as of 2026-07-28 but kept working until at least 2027-07-28; the page answers it while servers ask.

package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/askback/askback/internal/catalog"
	"github.com/askback/askback/internal/checks/urlcheck"
	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/client/interactive"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/recording"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// conn is the open session and what the page knows of its server.
type conn struct {
	target  Target
	sess    *session.Session
	rec     *recording.Writer
	recFile *os.File
	recPath string
	opened  time.Time

	// Listing is what the server offers (its Info is not read: the
	// session's is).
	catalog.Listing
	listErrs []string

	// state is the requestState of the last input_required answer, not yet
	// seen going back.
	state *stateRound

	steps   []loginStep       // the steps of its OAuth login (traffic.go)
	waiting map[string]sentAt // requests not yet answered, by direction and id
}

func (c *conn) close() {
	if c.sess != nil {
		c.sess.Close()
	}
	if c.rec != nil {
		c.rec.Close("")
	}
	if c.recFile != nil {
		c.recFile.Close()
	}
}

// call is one tool call, prompt or resource read the person made.
type call struct {
	ID      int
	Kind    string // "tool", "prompt" or "resource"
	Name    string // the tool or prompt's name, or the resource's URI
	Args    string // the arguments as JSON
	Started time.Time
	Ended   time.Time
	Done    bool
	Err     string
	Result  string // the result as indented JSON
	IsError bool   // a tool result with isError
	Texts   []string
	Rounds  int
	Task    string   // the task's last status, when the server ran it as one (cut to maxLine)
	TaskRun *taskRun // the task the call runs as, or the person's choice (tasks.go)

	Questions []exchange.Entry // every question asked, with its answer
	States    []*stateRound    // every requestState the server sent
	Pending   *pending         // the question waiting for the person
	Progress  string           // the last progress notification, cut to maxLine
	// prepared holds the answers the person gave, with the first question
	// of a round that asks several, to the ones after it, until the
	// session asks them.
	prepared  map[string]*mcp.ElicitResult
	Forgotten bool // the details were dropped (maxDetailed)
	cancel    context.CancelFunc
}

// maxDetailed bounds the calls whose details the page keeps in memory: an
// older call keeps its name and outcome, its details stay in the recording.
const maxDetailed = 100

// forget drops the details of a call that ended long ago.
func (c *call) forget() {
	if !c.Done || c.Forgotten {
		return
	}
	c.Result, c.Texts, c.Questions, c.States, c.Forgotten = "", nil, nil, nil, true
	c.TaskRun.forget()
}

// stateRound is one requestState of a call: its size, and whether it went
// back to the server byte for byte.
type stateRound struct {
	Round    int
	Size     int
	value    string
	Returned bool // a request carried a requestState after it
	Same     bool // and it was this one, untouched
}

// pending is a question waiting for the person's answer.
type pending struct {
	Seq      int
	Q        *answer.Question       // an elicitation; nil for a sampling request
	SQ       *answer.SampleQuestion // a request for a model reply
	Fields   []*interactive.Field   // a form's fields
	Values   []interactive.Value    // what the person entered (after a refused submit)
	Link     interactive.Link       // a URL question's link (shown, cut: see newPart)
	Message  string                 // the question's message, cut to maxBody
	Key      string                 // its key, cut to maxLine
	Problems []string               // why the last submit was refused
	Schema   string                 // the requested schema as JSON
	Sample   string                 // the sampling request's messages as text
	// Parts are every question of a round that asks several, the first
	// one included, answered together in one form; empty otherwise.
	Parts []*part
	reply chan any // *mcp.ElicitResult or *mcp.CreateMessageWithToolsResult
}

// part is one question of a round that asks several.
type part struct {
	Q        *answer.Question
	Message  string // Q's message, cut to maxBody
	Key      string // Q's key, cut to maxLine
	Fields   []*interactive.Field
	Values   []interactive.Value
	Link     interactive.Link
	Schema   string
	Action   string   // what the person chose for it (after a refused submit)
	Problems []string // why the last submit was refused
}

// newPart describes question q for the page, every text of the server's
// cut (the question, its fields, its link as shown; q itself is whole);
// where is where the server that asks it is.
func newPart(q *answer.Question, where urlcheck.Server) *part {
	pt := &part{Q: q, Action: "accept", Key: trim(q.Key, maxLine)}
	if q.Params != nil {
		pt.Message = trim(q.Params.Message, maxBody)
	}
	if q.Form != nil {
		pt.Fields = interactive.Describe(q.Form)
		for _, f := range pt.Fields {
			pt.Values = append(pt.Values, f.Start)
			f.Title, f.Description, f.Placeholder = trim(f.Title, maxBody), trim(f.Description, maxBody), trim(f.Placeholder, maxBody)
			for i := range f.Options {
				f.Options[i].Label = trim(f.Options[i].Label, maxBody)
			}
		}
	}
	if q.Mode() == "url" {
		pt.Link = interactive.Inspect(q.Params.URL, where)
		l := &pt.Link
		l.URL, l.Before, l.Host, l.After, l.Unicode = trim(l.URL, maxBody), trim(l.Before, maxBody), trim(l.Host, maxBody), trim(l.After, maxBody), trim(l.Unicode, maxBody)
	}
	if q.Params != nil && q.Params.RequestedSchema != nil {
		if b, err := json.MarshalIndent(q.Params.RequestedSchema, "", "  "); err == nil {
			pt.Schema = trim(string(b), maxBody)
		}
	}
	return pt
}

// maxBody bounds what the page keeps and shows of one value a server sent;
// maxLine bounds a text shown as one line (a progress notification, a
// task's status, a key).
const (
	maxBody = 64 << 10
	maxLine = 4 << 10
)

// Connect opens a session to t, lists what the server offers, and makes
// it the page's session (closing the one before).
func (s *Server) Connect(ctx context.Context, t Target) error {
	if s.opts.SessionOptions == nil {
		return errors.New("connecting is not available")
	}
	opts, err := s.opts.SessionOptions(t)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.seq++
	seq := s.seq
	old := s.conn
	s.conn = nil
	s.mu.Unlock()
	if old != nil {
		old.close()
	}
	c := &conn{target: t, opened: s.opts.Now()}
	c.recPath = filepath.Join(s.opts.Dir, fmt.Sprintf("session-%d.jsonl", seq))
	transport := recording.TransportStdio
	if t.Command == "" {
		transport = recording.TransportHTTP
	}
	secrets := s.watch(c, t, &opts)
	rec, f, err := recording.Create(c.recPath, recording.Header{Transport: transport, Server: t.Describe(), Writer: "mcp-tester ui"}, recording.WriterOptions{Secrets: secrets})
	if err != nil {
		return err
	}
	c.rec, c.recFile = rec, f
	opts.Log = &exchange.Log{}
	opts.Log.Observe(s.heard)
	// The person answers every question, and writes every model reply.
	where := urlcheck.Server{}
	if opts.Target != nil {
		where = opts.Target.Where()
	}
	opts.Answerer = answer.Who{Person: &pageAnswerer{s: s, where: where}}.Answerer()
	outer := opts.Observe
	opts.Observe = func(sent bool, msg jsonrpc.Message) {
		if outer != nil {
			outer(sent, msg)
		}
		s.observe(c, sent, msg)
	}
	opts.OnTask = s.onTask
	opts.OnProgress = s.onProgress
	sess, err := session.Open(ctx, opts)
	if err != nil {
		c.close()
		return err
	}
	c.sess = sess
	s.list(ctx, c)
	s.mu.Lock()
	s.conn = c
	s.notify()
	s.mu.Unlock()
	return nil
}

// list fetches what the server offers, every page, the one way every
// command does (catalog.List); a list that fails, or a listing that had
// to stop, is shown as its error.
func (s *Server) list(ctx context.Context, c *conn) {
	l, err := catalog.List(ctx, c.sess, catalog.Options{})
	if err != nil {
		c.listErrs = append(c.listErrs, trim(err.Error(), maxBody))
		return
	}
	c.Listing = *l
	for _, f := range l.Failures() {
		c.listErrs = append(c.listErrs, trim(f, maxBody))
	}
}

// current is the call in progress; hold s.mu.
func (s *Server) current() *call {
	if n := len(s.calls); n > 0 && !s.calls[n-1].Done {
		return s.calls[n-1]
	}
	return nil
}

// heard keeps each question and its answer with the call that asked it.
func (s *Server) heard(e exchange.Entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.current(); c != nil {
		c.Questions = append(c.Questions, shownEntry(e))
		s.notify()
	}
}

// shownEntry is e as the call's timeline keeps it: the server's texts
// cut (its message and URL to maxBody, its key to maxLine).
func shownEntry(e exchange.Entry) exchange.Entry {
	e.Key, e.Note = trim(e.Key, maxLine), trim(e.Note, maxBody)
	if e.Params != nil {
		p := *e.Params
		p.Message, p.URL = trim(p.Message, maxBody), trim(p.URL, maxBody)
		e.Params = &p
	}
	return e
}

func (s *Server) onTask(u taskclient.Update) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.current(); c != nil {
		task := fmt.Sprintf("%s %s", u.TaskID, u.Status)
		if u.StatusMessage != "" {
			task += ": " + u.StatusMessage
		}
		c.Task = trim(task, maxLine)
		c.noteTask(u, s.opts.Now())
		s.notify()
	}
}

func (s *Server) onProgress(p session.Progress) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.current(); c != nil {
		c.Progress = trim(p.String(), maxLine)
		s.notify()
	}
}

// observe hears every message on the wire: it goes to the recording and
// the message log, and a requestState is followed from the answer that
// carried it to the request that brought it back.
func (s *Server) observe(c *conn, sent bool, msg jsonrpc.Message) {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return
	}
	dir := recording.ServerToClient
	if sent {
		dir = recording.ClientToServer
	}
	_ = c.rec.Message(dir, b, nil)
	st := readRoundState(sent, msg)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.msgs.add(s.describe(c, sent, msg, b))
	if cur := s.current(); cur != nil && st.asks {
		cur.prepared = nil
	}
	if st.requestState == nil {
		return
	}
	s.followState(c, sent, *st.requestState)
	s.notify()
}

// roundState is what a message says of the rounds of a call.
type roundState struct {
	requestState *string // the requestState it carries, if any
	asks         bool    // an answer that is input_required
}

// readRoundState reads what msg, sent or received, says of the rounds of a call.
func readRoundState(sent bool, msg jsonrpc.Message) roundState {
	var raw json.RawMessage
	switch msg := msg.(type) {
	case *jsonrpc.Request:
		raw = msg.Params
	case *jsonrpc.Response:
		raw = msg.Result
	}
	var st struct {
		RequestState *string `json:"requestState"`
		ResultType   string  `json:"resultType"`
	}
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &st)
	}
	return roundState{requestState: st.RequestState, asks: !sent && st.ResultType == "input_required"}
}

// followState follows a requestState from the answer that carried it
// (received) to the request that brought it back (sent); hold s.mu.
func (s *Server) followState(c *conn, sent bool, state string) {
	if !sent {
		r := &stateRound{Size: len(state), value: state}
		if cur := s.current(); cur != nil {
			r.Round = len(cur.States) + 1
			cur.States = append(cur.States, r)
		}
		c.state = r
	} else if c.state != nil {
		c.state.Returned = true
		c.state.Same = c.state.value == state
		c.state = nil
	}
}

func idText(id jsonrpc.ID) string {
	if !id.IsValid() {
		return ""
	}
	return fmt.Sprint(id.Raw())
}

// pageAnswerer answers questions with what the person submits in the page.
type pageAnswerer struct {
	s *Server
	// where is where the server is, for the warnings of its links.
	where urlcheck.Server
}

// Answer shows the question in the page and waits for the person.
func (a *pageAnswerer) Answer(ctx context.Context, q *answer.Question) (*mcp.ElicitResult, error) {
	p := &pending{Q: q, reply: make(chan any, 1)}
	if res, parts := a.together(q); res != nil {
		return res, nil
	} else if len(parts) > 1 {
		p.Parts = parts
	}
	pt := newPart(q, a.where)
	p.Fields, p.Values, p.Link, p.Schema, p.Message, p.Key = pt.Fields, pt.Values, pt.Link, pt.Schema, pt.Message, pt.Key
	v, err := a.wait(ctx, p)
	if err != nil {
		return nil, err
	}
	return v.(*mcp.ElicitResult), nil
}

// together is the answer the person already gave to q with the first
// question of its round, or, for the first question of a round that asks
// several, every elicitation of the round to show in one form.
func (a *pageAnswerer) together(q *answer.Question) (*mcp.ElicitResult, []*part) {
	if q.Key == "" || q.Via != exchange.ViaInputRequired {
		return nil, nil
	}
	s := a.s
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.current()
	if c == nil {
		return nil, nil
	}
	if res, ok := c.prepared[q.Key]; ok {
		delete(c.prepared, q.Key)
		return res, nil
	}
	if len(q.Later) == 0 {
		return nil, nil
	}
	return nil, roundParts(q, a.where)
}

// roundParts are q and the elicitations of its round after it
// ([answer.Question.Later]), in the order the session asks them, each
// described for the page.
func roundParts(q *answer.Question, where urlcheck.Server) []*part {
	parts := []*part{newPart(q, where)}
	for _, o := range q.Later {
		parts = append(parts, newPart(o, where))
	}
	return parts
}

// Sample shows a request for a model reply and waits for the person's.
func (a *pageAnswerer) Sample(ctx context.Context, q *answer.SampleQuestion) (*mcp.CreateMessageWithToolsResult, error) {
	p := &pending{SQ: q, reply: make(chan any, 1)}
	if q.Params != nil {
		if b, err := json.MarshalIndent(q.Params.Messages, "", "  "); err == nil {
			p.Sample = trim(string(b), maxBody)
		}
	}
	v, err := a.wait(ctx, p)
	if err != nil {
		return nil, err
	}
	return v.(*mcp.CreateMessageWithToolsResult), nil
}

func (a *pageAnswerer) wait(ctx context.Context, p *pending) (any, error) {
	s := a.s
	s.mu.Lock()
	c := s.current()
	if c == nil {
		s.mu.Unlock()
		return nil, answer.ErrNoAnswer
	}
	s.seq++
	p.Seq = s.seq
	c.Pending = p
	s.notify()
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if c.Pending == p {
			c.Pending = nil
		}
		s.notify()
		s.mu.Unlock()
	}()
	select {
	case v := <-p.reply:
		if r, ok := v.(*refusal); ok {
			return nil, r.err
		}
		return v, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
