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

// nounBefore reads the end of a text as determiner does, and the send
// verbs' words are those of their expressions.
func TestNounBeforeIsDeterminer(t *testing.T) {
	for _, prefix := range []string{"", "send ", "the ", "The ", "(the ", "athe ", "the user's ", "users' ", "a full ",
		"a full, ", "the user's e-mail ", "send the data ", "its\t", "Every  ", "the Ünïcode ", "x's", "the", "to our ", "the user\u2019s "} {
		if got, want := nounBefore(prefix), determiner.MatchString(prefix); got != want {
			t.Errorf("nounBefore(%q) = %v, determiner says %v", prefix, got, want)
		}
	}
	for _, w := range []string{"send", "e-mail", "dispatch", "report"} {
		if !sendVerbWords()[w] || sendVerb.FindString(w) != w {
			t.Errorf("%q: sendVerbWords %v, sendVerb %q", w, sendVerbWords()[w], sendVerb.FindString(w))
		}
	}
	if len(sendVerbWords()) < 20 || !sendsVerbWords()["dispatches"] {
		t.Errorf("sendVerbWords %d words, sendsVerbWords %v", len(sendVerbWords()), sendsVerbWords())
	}
}
