package b64url

import (
	"bytes"
	"testing"
)

func TestDecodeOneSpelling(t *testing.T) {
	for _, s := range []string{"", "AA", "AAA", "_-8", "aGVsbG8"} {
		b, err := Decode(s)
		if err != nil || Encode(b) != s {
			t.Errorf("Decode(%q) = %v, %v; want the bytes Encode spells that way", s, b, err)
		}
	}
	for _, s := range []string{
		"AB",        // unused low bits set (AA is canonical)
		"aGVsbG9",   // unused low bits set
		"aGVs\nbG8", // line break
		"aGVs\rbG8", // carriage return
		"aGVsbG8=",  // padding
		"aGVs+G8",   // standard alphabet
		"aGVs bG8",  // space
		"A",         // impossible length
	} {
		if b, err := Decode(s); err == nil {
			t.Errorf("Decode(%q) = %v, want ErrNotCanonical", s, b)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{"", "AA", "AB", "aGVs\nbG8", "aGVsbG8="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := Decode(s)
		if err != nil {
			return
		}
		if Encode(b) != s {
			t.Fatalf("Decode(%q) accepted a spelling Encode does not write (%q)", s, Encode(b))
		}
		if again, _ := Decode(Encode(b)); !bytes.Equal(again, b) {
			t.Fatalf("round trip of %q changed the bytes", s)
		}
	})
}
