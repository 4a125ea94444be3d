package standin

import (
	"errors"
	"strings"
	"testing"

	"github.com/askback/askback/internal/recording"
)

const header = `{"format":"askback-recording/1","started":"2026-12-03T10:00:00Z","transport":"streamable-http","server":"http://127.0.0.1:1/mcp"}` + "\n"

func buildErr(t *testing.T, text string) error {
	t.Helper()
	rec, err := recording.Read(strings.NewReader(text), recording.ReadOptions{})
	if err != nil {
		return err
	}
	_, err = Build(rec)
	return err
}

// Two calls at once in one session: each question belongs to the call
// whose stream carried it, and questions asked before any was answered
// are one round.
func TestBuildPairsByStream(t *testing.T) {
	elicit := `"method":"elicitation/create","params":{"message":"%s","requestedSchema":{"type":"object","properties":{}}}`
	q := func(id int, stream, msg string) string {
		return `{"t_ms":1,"dir":"s2c","msg":{"jsonrpc":"2.0","id":` + itoa(id) + `,` + strings.Replace(elicit, "%s", msg, 1) + `},"http":{"session":"s1","stream":"` + stream + `"}}` + "\n"
	}
	a := func(id int, action string) string {
		return `{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":` + itoa(id) + `,"result":{"action":"` + action + `"}},"http":{"session":"s1","stream":"post-9"}}` + "\n"
	}
	text := header +
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}},"http":{"session":"s1","stream":"post-1"}}` + "\n" +
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b"}},"http":{"session":"s1","stream":"post-2"}}` + "\n" +
		q(1, "post-2", "b1") + q(2, "post-1", "a1") + q(3, "post-2", "b2") +
		a(2, "accept") + a(1, "decline") + a(3, "cancel") +
		q(4, "post-2", "b3") + a(4, "accept") +
		`{"t_ms":1,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"content":[]}},"http":{"session":"s1","stream":"post-1"}}` + "\n" +
		`{"t_ms":1,"dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"content":[]}},"http":{"session":"s1","stream":"post-2"}}` + "\n"
	sc := script(t, text)
	if len(sc.Exchanges) != 2 {
		t.Fatalf("%d exchanges", len(sc.Exchanges))
	}
	xa, xb := sc.Exchanges[0], sc.Exchanges[1]
	if len(xa.Rounds) != 1 || len(xa.Rounds[0].Questions) != 1 || !strings.Contains(string(xa.Rounds[0].Questions[0].Params), "a1") ||
		string(xa.Rounds[0].Questions[0].Answer) != `{"action":"accept"}` {
		t.Errorf("a: %+v", xa.Rounds)
	}
	if len(xb.Rounds) != 2 || len(xb.Rounds[0].Questions) != 2 || len(xb.Rounds[1].Questions) != 1 {
		t.Fatalf("b: %d rounds", len(xb.Rounds))
	}
	keys := []string{xb.Rounds[0].Questions[0].Key, xb.Rounds[0].Questions[1].Key, xb.Rounds[1].Questions[0].Key}
	if strings.Join(keys, ",") != "q1,q2,q3" {
		t.Errorf("keys %v", keys)
	}
	if string(xb.Rounds[0].Questions[0].Answer) != `{"action":"decline"}` || string(xb.Rounds[1].Questions[0].Answer) != `{"action":"accept"}` {
		t.Errorf("b's answers")
	}
	if !xa.Ended || !xb.Ended || len(sc.Warnings) != 0 {
		t.Errorf("ended %v %v, warnings %q", xa.Ended, xb.Ended, sc.Warnings)
	}
}

func itoa(n int) string { return string(rune('0' + n)) }

// A recording the stand-in could not serve as recorded says which line:
// results that are not what the method answers, questions that are none.
func TestBuildRefusesNamingTheLine(t *testing.T) {
	call := `{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}}` + "\n"
	for name, c := range map[string]struct{ text, want string }{
		"result": {header + call + `{"t_ms":2,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"content":"text"}}}` + "\n",
			`line 3: the result of tools/call a (line 2): not a tools/call result`},
		"question": {header + call + `{"t_ms":2,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"tools/call","params":{}}}}}}` + "\n",
			`line 3: the questions of tools/call a (line 2): question "k" asks "tools/call", which is no question a client answers`},
		"params": {header + `{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["a"]}}` + "\n",
			`line 2: the params of tools/call cannot be matched`},
		"line": {header + call + "{\"t_ms\":2,\"dir\":\"s2c\",\"msg\":{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n" + call,
			`line 3: `},
	} {
		err := buildErr(t, c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant %s", name, err, c.want)
		}
		var be *recording.Error
		var re *recording.Error
		if !errors.As(err, &be) && !errors.As(err, &re) {
			t.Errorf("%s: %T", name, err)
		}
	}
}

// What a stand-in serves otherwise than recorded is a warning with its
// line: a response to nothing, a round whose first round is not there, a
// task with no id, a protocol it does not speak, a question never answered, and a
// call the recording ends before.
func TestBuildWarns(t *testing.T) {
	text := header +
		`{"t_ms":1,"dir":"s2c","msg":{"jsonrpc":"2.0","id":9,"result":{}}}` + "\n" +
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","requestState":"x","inputResponses":{"k":{"action":"decline"}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}}` + "\n" +
		`{"t_ms":1,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","status":"working"}}}` + "\n" +
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b"}}}` + "\n" +
		`{"t_ms":1,"dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"roots/list"}}}}}` + "\n" +
		`{"t_ms":1,"dir":"c2s","event":"client-gone","note":"the client closed its side"}` + "\n"
	sc := script(t, text)
	warnings := warningText(sc)
	for _, want := range []string{
		"line 2: a response to a request the recording does not hold: skipped",
		`line 3: protocol version "2099-01-01", which this mcp-tester does not speak`,
		"line 3: tools/call a carries answers to a round the recording does not hold: served as a request of its own",
		"line 4: tools/call a ran as a task (tasks extension) with no taskId: the call is answered with an error",
		`line 6: question "k" of tools/call b was never answered`,
	} {
		if !strings.Contains(warnings, want) {
			t.Errorf("no warning %q in\n%s", want, warnings)
		}
	}
	if x := sc.Exchanges[1]; x.Ended || x.Unended != "the client left (line 7), before the server answered" {
		t.Errorf("b: %+v", x)
	}
}

// A recording cut short serves what came before the cut; the call it cut
// says so when called.
func TestBuildTruncated(t *testing.T) {
	b, err := readTestdata("deploy-2026.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	text := strings.Join(lines[:8], "") + lines[8][:40]
	sc := script(t, text)
	if !sc.Truncated || len(sc.Exchanges) != 2 {
		t.Fatalf("truncated %v, %d exchanges", sc.Truncated, len(sc.Exchanges))
	}
	// The answer to the deploy's question is there; the result is cut.
	if x := sc.Exchanges[1]; x.Ended || len(x.Rounds) != 1 || x.Rounds[0].Questions[0].Answer == nil ||
		x.Unended != "the recording is cut short before the server answered" {
		t.Errorf("%+v", x)
	}
}

// Over stdio nothing says which of two calls in progress a question
// belongs to, and an id used again while its request waits makes its
// answer ambiguous: each is a warning naming the line, not a silent guess.
func TestBuildWarnsWhereAmbiguous(t *testing.T) {
	stdio := `{"format":"askback-recording/1","started":"2026-12-03T10:00:00Z","transport":"stdio","server":"s"}` + "\n"
	text := stdio +
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}}` + "\n" +
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b"}}}` + "\n" +
		`{"t_ms":1,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"which?","requestedSchema":{"type":"object","properties":{}}}}}` + "\n" +
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"result":{"action":"decline"}}}` + "\n" +
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"c"}}}` + "\n" +
		`{"t_ms":1,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"content":[]}}}` + "\n" +
		`{"t_ms":1,"dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"content":[]}}}` + "\n"
	sc := script(t, text)
	warnings := warningText(sc)
	for _, want := range []string{
		"line 4: elicitation/create came while 1 other call(s) were in progress, and nothing says which one asked it: taken as tools/call a's (line 2), the earliest",
		"line 6: the request id 2 is already the id of the request at line 3, which has no answer yet: an answer with this id is taken as the earlier one's",
	} {
		if !strings.Contains(warnings, want) {
			t.Errorf("no warning %q in:\n%s", want, warnings)
		}
	}
}

// A recorded question of a mode no client can answer (a hand-edited
// recording) is refused before anything is served, naming its line.
func TestUnknownModeRefused(t *testing.T) {
	stdio := `{"format":"askback-recording/1","started":"2026-12-03T10:00:00Z","transport":"stdio","server":"s"}` + "\n"
	sc := script(t, stdio+
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}}`+"\n"+
		`{"t_ms":1,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"mode":"telepathy","message":"which?","requestedSchema":{"type":"object","properties":{}}}}}`+"\n"+
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"result":{"action":"decline"}}}`+"\n"+
		`{"t_ms":1,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"content":[]}}}`+"\n")
	_, err := New(sc, Options{})
	var be *recording.Error
	if !errors.As(err, &be) || be.Line != 3 || !strings.Contains(err.Error(), `the elicitation's mode "telepathy" is neither form nor url`) {
		t.Errorf("got %v", err)
	}
}

// warningText is sc's warnings, one a line.
func warningText(sc *Script) string {
	var lines []string
	for _, w := range sc.Warnings {
		lines = append(lines, w.Error())
	}
	return strings.Join(lines, "\n")
}

// initRecording is a stdio recording of an initialize whose result
// declares caps, and nothing else.
func initRecording(caps string) string {
	return `{"format":"askback-recording/1","started":"2026-12-03T10:00:00Z","transport":"stdio","server":"s"}` + "\n" +
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"c","version":"1"},"protocolVersion":"2025-11-25","capabilities":{}}}}` + "\n" +
		`{"t_ms":2,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"capabilities":` + caps + `,"protocolVersion":"2025-11-25","serverInfo":{"name":"s","version":"1"}}}}` + "\n"
}

// Every member of the recorded capabilities the stand-in does not declare
// is named in a note, each once: capabilities.tasks with no task of
// 2025-11-25 recorded (with why), and whatever the go-sdk's types do not
// hold; what it declares as recorded, and members false, are not.
func TestNotesUndeclaredCapabilities(t *testing.T) {
	s, _ := standin(t, script(t, initRecording(`{"tools":{"listChanged":true,"future":{}},"logging":{},"completions":{"x":{}},`+
		`"experimental":{"e":{"a":1}},"prompts":{"listChanged":false},"tasks":{"list":{},"requests":{"tools":{"call":{}}}},"newThing":{"on":true},"gone":false}`)), Options{})
	notes := strings.Join(s.Notes(), "\n")
	for _, want := range []string{
		"the recorded server declared capabilities.tasks (tasks of protocol 2025-11-25), which the stand-in does not declare: the recording holds no call the server ran as such a task",
		"the recorded server declared capabilities.completions.x, capabilities.newThing, capabilities.tools.future, which the stand-in does not declare: a stand-in does not serve it",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes:\n%s\nwant %q", notes, want)
		}
	}
	for _, not := range []string{"experimental", "logging", "prompts", "gone", "listChanged"} {
		if strings.Contains(notes, "capabilities."+not) {
			t.Errorf("notes name capabilities.%s, which is declared (or declares nothing):\n%s", not, notes)
		}
	}
	for _, sc := range []*Script{script(t, initRecording(`{"tools":{"listChanged":true},"logging":{}}`)), load(t, "task-2025-asked.jsonl")} {
		s, _ = standin(t, sc, Options{})
		if notes := strings.Join(s.Notes(), "\n"); strings.Contains(notes, "does not declare") {
			t.Errorf("notes of capabilities all declared (tasks of 2025-11-25 recorded, so capabilities.tasks served):\n%s", notes)
		}
	}
}
