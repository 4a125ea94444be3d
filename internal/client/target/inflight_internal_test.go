package target

import (
	"errors"
	"net/http"
	"testing"
)

// An answer to a server's request whose POST starts after the session's
// close has ended the answers under way is refused at once: nothing would
// end it later, and the close, which waits for it, would wait for ever.
func TestAnswerAfterTheEndIsRefused(t *testing.T) {
	f := newInflight(&refusal{}, MaxUnread)
	f.endAnswers(0)
	answer, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, done, err := f.start(answer); !errors.Is(err, errAnswersEnded) {
		if done != nil {
			done()
		}
		t.Fatalf("an answer after the end: %v, want %v", err, errAnswersEnded)
	}
}
