package keys_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/askback/askback/keys"
)

func TestCheck(t *testing.T) {
	good := keys.Key{ID: "2026-07_a", Secret: bytes.Repeat([]byte{1}, 32)}
	if err := keys.Check([]keys.Key{good}); err != nil {
		t.Fatal(err)
	}
	for want, ks := range map[string][]keys.Key{
		"no keys":        nil,
		"must be 1 to":   {{ID: "a.b", Secret: good.Secret}},
		"appears twice":  {good, good},
		"at least 32":    {{ID: "short", Secret: []byte("0123456789")}},
		"must be 1 to 3": {{ID: strings.Repeat("k", 33), Secret: good.Secret}},
	} {
		if err := keys.Check(ks); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check(%v) = %v, want an error with %q", ks, err, want)
		}
	}
}

func TestNew(t *testing.T) {
	a, err := keys.New("k1")
	if err != nil || len(a.Secret) != keys.MinSecretLen {
		t.Fatalf("New = %+v, %v", a, err)
	}
	b, _ := keys.New("k1")
	if bytes.Equal(a.Secret, b.Secret) {
		t.Fatal("two new keys share a secret")
	}
	if _, err := keys.New("bad id"); err == nil {
		t.Fatal("New accepted an invalid id")
	}
}
