//lint:file-ignore SA1019 sampling and roots are deprecated but still part of the protocol; their answers are read as the go-sdk reads them.

package ask

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/askback/askback/internal/encoding/jsonscan"
	"github.com/askback/askback/internal/encoding/strictjson"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrAmbiguous is wrapped by the errors of [CheckMessage].
var ErrAmbiguous = errors.New("ambiguous message")

// CheckMessage checks a JSON-RPC message as it arrives at a server, before
// the go-sdk reads it, and reports an error wrapping [ErrAmbiguous] when
// two readers may read it differently:
//   - a key twice in one object at any depth: the go-sdk keeps the last,
//     other readers (a gateway, a log, a person) the first. Answers given
//     as {"action":"decline","action":"accept"}, or one question's key twice
//     in inputResponses, would be taken as the last;
//   - inside an answer (an entry of a request's inputResponses, the result
//     of a response the client sends, such as its answer to
//     elicitation/create), two keys that differ only in letter case: the
//     go-sdk reads answers with encoding/json, which matches keys
//     case-insensitively ("Action" for "action").
//
// A batch is checked message by message. Data that is not JSON passes: the
// go-sdk refuses it with its own error. A server that serves HTTP through
// package endpoint, or stdio through [StrictStdio], has every message
// checked; one with a transport of its own calls CheckMessage on each
// message before the go-sdk sees it.
func CheckMessage(data []byte) error {
	r := jsonscan.Receive(data, spelledOtherwise)
	if r.Err != nil {
		if errors.Is(r.Err, strictjson.ErrAmbiguous) {
			return fmt.Errorf("%w: %v", ErrAmbiguous, r.Err)
		}
		return nil // not JSON: the go-sdk's own error
	}
	for _, a := range r.Answers {
		if err := checkAnswer(a); err != nil {
			if a.Message >= 0 {
				return fmt.Errorf("message %d of the batch: %w", a.Message, err)
			}
			return err
		}
	}
	return nil
}

// checkAnswer refuses an answer whose keys fold alike, or an entry of
// inputResponses that the go-sdk reads otherwise than a reader that
// matches keys as written.
func checkAnswer(a jsonscan.Answer) error {
	if a.Result {
		if a.Case != nil {
			return fmt.Errorf("%w: the result: %v", ErrAmbiguous, a.Case)
		}
		return nil
	}
	if a.Case != nil {
		return fmt.Errorf("%w: inputResponses[%q]: %v", ErrAmbiguous, a.Key, a.Case)
	}
	if err := readOneWay(a.Raw); err != nil {
		return fmt.Errorf("%w: inputResponses[%q]: %v", ErrAmbiguous, a.Key, err)
	}
	return nil
}

// readOneWay reads an answer as the go-sdk does (encoding/json, keys
// matched in any case, the kind of answer told by its "action", "role" or
// "roots") and as a reader that matches keys as written does, and reports
// an error when the two differ: "ACTION" is the action to the one and
// nothing to the other.
func readOneWay(raw json.RawMessage) error {
	loose, err := readAnswer(raw, json.Unmarshal)
	if err != nil {
		return nil // the go-sdk refuses it itself
	}
	a, _ := json.Marshal(loose)
	exact, err := readAnswer(raw, strictjson.DecodeAsSDK)
	b, _ := json.Marshal(exact)
	if err != nil || !bytes.Equal(a, b) {
		if err != nil {
			b = []byte(err.Error())
		}
		return fmt.Errorf("its keys are not spelled as the protocol spells them (read case-insensitively it is %s, as written: %s)", a, b)
	}
	return nil
}

// answerFields are the member names of the go-sdk's answer types that
// encoding/json decodes itself (elicitation and roots results, and what
// they hold; the sampling result and content decode themselves, keys as
// written), by their lower case: a key that encoding/json matches to one
// of them without being spelled as it is read otherwise by the two
// decoders.
var answerFields = func() []fieldNames {
	names := map[string][]string{}
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] || reflect.PointerTo(t).Implements(unmarshaler) {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous && name == "" {
				walk(f.Type)
				continue
			}
			if name == "-" || !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if low := strings.ToLower(name); !slices.Contains(names[low], name) {
				names[low] = append(names[low], name)
			}
			walk(f.Type)
		}
	}
	for _, v := range []any{mcp.ElicitResult{}, mcp.CreateMessageWithToolsResult{}, mcp.ListRootsResult{}} {
		walk(reflect.TypeOf(v))
	}
	// The go-sdk tells the kind of an answer by these, read by
	// encoding/json.
	for _, n := range []string{"action", "role", "roots"} {
		if !slices.Contains(names[n], n) {
			names[n] = append(names[n], n)
		}
	}
	var out []fieldNames
	for _, low := range slices.Sorted(maps.Keys(names)) {
		out = append(out, fieldNames{folded: []byte(low), spellings: names[low]})
	}
	return out
}()

// fieldNames are the spellings of one member name of the answer types,
// under their lower case.
type fieldNames struct {
	folded    []byte
	spellings []string
}

var unmarshaler = reflect.TypeFor[json.Unmarshaler]()

// spelledOtherwise reports whether a key of an answer may be one that
// encoding/json matches to a member of the go-sdk's answer types without
// being spelled as it ("ACTION", "Content", a Kelvin sign for a k): a key
// equal to a known name under encoding/json's folding (bytes.EqualFold)
// and spelled as none of its spellings. Escaped keys are looked at by
// Receive itself. The comparison of both readings (readOneWay) decides;
// this only says when to make it, without allocating.
func spelledOtherwise(key []byte) bool {
	for _, f := range answerFields {
		if !bytes.EqualFold(key, f.folded) {
			continue
		}
		for _, name := range f.spellings {
			if string(key) == name {
				return false
			}
		}
		return true
	}
	return false
}

// readAnswer decodes an answer with decode into the type the go-sdk picks
// for it.
func readAnswer(raw json.RawMessage, decode func([]byte, any) error) (any, error) {
	var probe struct {
		Action json.RawMessage `json:"action"`
		Role   json.RawMessage `json:"role"`
		Roots  json.RawMessage `json:"roots"`
	}
	if err := decode(raw, &probe); err != nil {
		return nil, err
	}
	var v any
	switch {
	case probe.Roots != nil:
		v = &mcp.ListRootsResult{}
	case probe.Action != nil:
		v = &mcp.ElicitResult{}
	case probe.Role != nil:
		v = &mcp.CreateMessageWithToolsResult{}
	default:
		return nil, errors.New(`no "action", "role" or "roots"`)
	}
	if err := decode(raw, v); err != nil {
		return nil, err
	}
	return v, nil
}

// Refusal is what a server sends back instead of serving a message that
// [CheckMessage] refused: for a request, the JSON-RPC error (-32602) to send
// the client; for a response (an answer to the server's own request), the
// error response to hand the go-sdk in its place, so that the server's
// request fails at once rather than waiting for an answer that will not
// come.
type Refusal struct {
	// Reply is the error response to send the client; nil for a response
	// or a notification.
	Reply []byte
	// Replace is the message to pass on instead; nil for a request or a
	// notification.
	Replace []byte
}

// Refuse returns what to send back, or pass on, instead of one message
// that CheckMessage refused with err. A message without an id (a
// notification) is dropped: both fields are nil.
func Refuse(msg []byte, err error) Refusal {
	var m struct {
		ID     any             `json:"id"`
		Method json.RawMessage `json:"method"`
	}
	// The id and the method as the go-sdk reads them ("ID" is not "id").
	if strictjson.DecodeLikeSDK(msg, &m) != nil {
		return Refusal{}
	}
	id, idErr := jsonrpc.MakeID(m.ID)
	if idErr != nil || !id.IsValid() {
		return Refusal{}
	}
	wire := &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error() + "; send each key once, as written"}
	out, encErr := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: wire})
	if encErr != nil {
		return Refusal{}
	}
	if len(m.Method) > 0 {
		return Refusal{Reply: out}
	}
	return Refusal{Replace: out}
}

// StrictStdio is [mcp.StdioTransport] with every message checked by
// [CheckMessage] before the go-sdk reads it: a refused request is answered
// with an invalid-params error naming the ambiguity, a refused answer to the
// server's own request reaches the go-sdk as an error response.
func StrictStdio() *mcp.IOTransport {
	return StrictIO(os.Stdin, nopCloser{os.Stdout})
}

// StrictIO is [mcp.IOTransport] over r and w with every message checked
// as [StrictStdio] does. Messages are read as the go-sdk reads them (JSON
// values one after another, each ended by a newline); one that is not JSON,
// longer than [mcp.DefaultMaxLineLength], or followed by something else than
// a newline, reaches the go-sdk as it came, with everything after it, for
// its own error.
func StrictIO(r io.ReadCloser, w io.WriteCloser) *mcp.IOTransport {
	lw := &lockedWriter{w: w}
	pr, pw := io.Pipe()
	go screen(r, pw, lw)
	return &mcp.IOTransport{Reader: closeBoth{pr, r}, Writer: lw}
}

// screen passes the messages of r on to pw, checked, until r ends.
func screen(r io.Reader, pw *io.PipeWriter, out *lockedWriter) {
	rec := &recorder{r: r, limit: mcp.DefaultMaxLineLength}
	dec := json.NewDecoder(rec)
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			pw.Close()
			return
		}
		end := int(dec.InputOffset()) - rec.base
		if err != nil || !endsLine(dec) {
			// Not one message the go-sdk takes: hand it everything read
			// since the last message, and the rest, unread.
			passRest(pw, rec, r)
			return
		}
		pass := screenFrame(raw, out)
		rec.consumed(end)
		if len(pass) > 0 {
			if _, werr := pw.Write(append(pass, '\n')); werr != nil {
				return // the go-sdk closed its end
			}
		}
		if rec.over {
			// What follows is longer than the go-sdk reads: its own limit
			// refuses it.
			passRest(pw, rec, r)
			return
		}
	}
}

// endsLine reports whether the message dec has just read ends its line: a
// line end, or nothing, comes next in what it has buffered.
func endsLine(dec *json.Decoder) bool {
	var b [1]byte
	n, _ := dec.Buffered().Read(b[:])
	return n == 0 || b[0] == '\n' || b[0] == '\r'
}

// passRest hands pw what rec holds and the rest of r, unread.
func passRest(pw *io.PipeWriter, rec *recorder, r io.Reader) {
	_, err := pw.Write(rec.buf.Bytes())
	if err == nil {
		_, err = io.Copy(pw, r)
	}
	pw.CloseWithError(err)
}

// recorder keeps what was read from r since the end of the last message
// (at stream offset base), at most limit bytes of it: over says there was
// more.
type recorder struct {
	r     io.Reader
	buf   bytes.Buffer
	base  int
	limit int
	over  bool
}

func (c *recorder) Read(p []byte) (int, error) {
	if c.limit > 0 && c.buf.Len() >= c.limit {
		c.over = true
		return 0, errFrameTooLong
	}
	if c.limit > 0 && len(p) > c.limit-c.buf.Len() {
		p = p[:c.limit-c.buf.Len()]
	}
	n, err := c.r.Read(p)
	c.buf.Write(p[:n])
	return n, err
}

// consumed forgets what was read up to stream offset end.
func (c *recorder) consumed(end int) {
	c.buf.Next(end)
	c.base += end
}

// screenFrame checks one message (or batch) and returns what to pass on
// instead, without its newline.
func screenFrame(body []byte, out *lockedWriter) []byte {
	err := CheckMessage(body)
	if err == nil {
		return body
	}
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '[' {
		return screenBatch(body, out)
	}
	return refuse(body, err, out)
}

// screenBatch is screenFrame for a batch with an ambiguous message: each
// message checked alone.
func screenBatch(body []byte, out *lockedWriter) []byte {
	var batch []json.RawMessage
	if json.Unmarshal(body, &batch) != nil {
		return nil
	}
	var pass []json.RawMessage
	for _, m := range batch {
		if err := CheckMessage(m); err != nil {
			if r := refuse(m, err, out); r != nil {
				pass = append(pass, r)
			}
			continue
		}
		pass = append(pass, m)
	}
	if len(pass) == 0 {
		return nil
	}
	b, _ := json.Marshal(pass)
	return b
}

// refuse writes the reply to msg, refused for err, to out if it has one,
// and returns what passes on instead of it (nil: nothing).
func refuse(msg []byte, err error, out *lockedWriter) []byte {
	r := Refuse(msg, err)
	if r.Reply != nil {
		out.writeLine(r.Reply)
	}
	return r.Replace
}

var errFrameTooLong = errors.New("message longer than the go-sdk reads")

// lockedWriter writes whole messages, one at a time: the go-sdk's (each
// one Write) and the refusals'.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) writeLine(msg []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.w.Write(append(msg, '\n'))
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// closeBoth closes the pipe the go-sdk reads and the reader behind it.
type closeBoth struct {
	*io.PipeReader
	r io.ReadCloser
}

func (c closeBoth) Close() error {
	_ = c.PipeReader.Close()
	return c.r.Close()
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
