package fromrecording

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/askback/askback/internal/recording"
	"github.com/askback/askback/internal/recording/conversation"
	"github.com/askback/askback/internal/script"
	"github.com/askback/askback/internal/script/expect"
)

// FuzzRecordingToScript feeds any bytes through the whole way from a
// recording to a script: whatever a recording that reads holds (hostile
// names, keys, messages, ids, a truncated end), the script written parses,
// in both modes.
func FuzzRecordingToScript(f *testing.F) {
	for _, path := range []string{"../../../examples/deployer/deploy.jsonl", "../../../examples/deployer/deploy-2025.jsonl", "../../../examples/deployer/left.jsonl"} {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(b)
		}
	}
	head := `{"format":"askback-recording/1","started":"2026-12-03T10:00:00Z","transport":"stdio","server":"x"}` + "\n"
	for _, body := range []string{
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a b'\"$#","arguments":{"k y":1,"x":"it's \u202e\u001b"}}}}`,
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":"s","method":"prompts/get","params":{"name":"p","arguments":{"a":"b"}}}}` + "\n" +
			`{"t_ms":2,"dir":"s2c","msg":{"jsonrpc":"2.0","id":"s","result":{"resultType":"input_required","inputRequests":{"k=1 #x":{"method":"elicitation/create","params":{"message":"END\n{{x}}","mode":"url","url":"javascript:\u202e"}}}}}}` + "\n" +
			`{"t_ms":3,"dir":"c2s","msg":{"jsonrpc":"2.0","id":"t","method":"prompts/get","params":{"name":"p","arguments":{"a":"b"},"inputResponses":{"k=1 #x":{"action":"accept","content":{"a'":"'"}}}}}}` + "\n" +
			`{"t_ms":4,"dir":"s2c","msg":{"jsonrpc":"2.0","id":"t","result":{"messages":[{"role":"user","content":{"type":"text","text":"END"}}]}}}`,
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"r"}}}` + "\n" +
			`{"t_ms":2,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"T"}}}` + "\n" +
			`{"t_ms":3,"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"T"}}}` + "\n" +
			`{"t_ms":4,"dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"status":"failed","error":{"code":-1,"message":"x\ny"}}}}`,
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"d"}}}` + "\n" +
			`{"t_ms":2,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"hi","mode":"form\ncall_tool evil"}}}}}}` + "\n" +
			`{"t_ms":3,"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"d","inputResponses":{"k":{"action":"decline"}}}}}` + "\n" +
			`{"t_ms":4,"dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"content":[]}}}`,
	} {
		f.Add([]byte(head + body + "\n"))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := recording.Read(bytes.NewReader(data), recording.ReadOptions{MaxEntries: 1000})
		if err != nil {
			return
		}
		for _, lists := range []bool{false, true} {
			conv, err := conversation.Read(rec, conversation.Options{Lists: lists})
			if err != nil {
				return
			}
			for _, mode := range []expect.Mode{expect.Exact, expect.Shape} {
				src, _, err := Write(conv, Options{Match: mode, Ignore: []expect.Path{{"content", "*", "text"}}})
				if err != nil {
					continue
				}
				parsed, err := script.ParseFile("fuzz.mcp", src)
				if err != nil {
					t.Fatalf("the script does not parse: %v\n%s", err, src)
				}
				checkSends(t, conv, parsed, src)
			}
		}
	})
}

// sends are the commands that send something to the server.
var sends = map[string]bool{"call_tool": true, "start_tool": true, "get_prompt": true, "read_resource": true, "list": true, "logging": true, "cancel_task": true, "get_task": true}

// checkSends checks that what the script sends is what the recording's
// client sent, in order: every sending command is the command of the next
// call of the conversation (or the task commands that follow it), so that
// nothing a server or client put in a value became a command.
func checkSends(t *testing.T, conv *conversation.Conversation, parsed *script.Script, src []byte) {
	t.Helper()
	w := &writer{conv: conv}
	next := 0
	for _, st := range parsed.Steps() {
		cmd := st.Command
		text := st.Text
		if cmd == "expect_error" {
			text = strings.TrimPrefix(text, "expect_error ")
			cmd, _, _ = strings.Cut(text, " ")
		}
		if !sends[cmd] || cmd == "cancel_task" || cmd == "get_task" {
			continue
		}
		found := false
		for ; next < len(conv.Calls); next++ {
			want, err := w.command(conv.Calls[next])
			if err != nil {
				continue
			}
			if text == want || text == strings.Replace(want, "call_tool ", "start_tool ", 1) {
				found = true
				next++
				break
			}
		}
		if !found {
			t.Fatalf("line %d sends %q, which is no call of the recording, in order:\n%s", st.Line, st.Text, src)
		}
	}
}
