package scan

import (
	"strings"
	"testing"
	"time"
)

// A long run of bytes in which no rune starts (text that is not UTF-8) is
// still cut into sentences of at most maxSentence bytes, and the cut ends.
func TestSentencesEndOnBytesThatAreNotUTF8(t *testing.T) {
	s := "a" + strings.Repeat("\x80", 3*maxSentence) + ". Next."
	done := make(chan []string, 1)
	go func() { done <- sentences(s) }()
	select {
	case got := <-done:
		if strings.Join(got, "") != strings.TrimSuffix(s, ". Next.")+" Next" {
			t.Errorf("sentences lost or changed bytes: %d parts", len(got))
		}
		for _, p := range got {
			if len(p) > maxSentence {
				t.Errorf("a sentence of %d bytes, more than %d", len(p), maxSentence)
			}
		}
	case <-time.After(30 * time.Second):
		t.Fatal("sentences did not end on bytes that are not UTF-8")
	}
}
