package recordscript

import (
	"bytes"
	"os"
	"testing"

	"github.com/askback/askback/internal/conversation"
	"github.com/askback/askback/internal/jsonmatch"
	"github.com/askback/askback/internal/recording"
	"github.com/askback/askback/internal/script"
)

func TestZZAttack(t *testing.T) {
	data, err := os.ReadFile(os.Getenv("REC"))
	if err != nil {
		t.Skip()
	}
	rec, err := recording.Read(bytes.NewReader(data), recording.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	conv, err := conversation.Read(rec, conversation.Options{})
	if err != nil {
		t.Fatal(err)
	}
	src, warns, err := Write(conv, Options{Match: jsonmatch.Exact})
	t.Logf("err=%v warns=%v\n%s", err, warns, src)
	s, err := script.ParseFile("x.mcp", src)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	for _, st := range s.Steps {
		t.Logf("step %d: %s | %q", st.Line, st.Command, st.Text)
	}
}
