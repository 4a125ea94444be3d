package termsafe_test

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/askback/askback/internal/termsafe"
)

// A server's text as most of it is: plain, with line breaks; and as a
// hostile server sends it.
var (
	plainText   = strings.Repeat("Rolling out auth-service 2.4.1 to production – 50 % done.\n", 1100)
	hostileText = strings.Repeat("Rolling out \x1b[2J auth-service\u202e 2.4.1 to production.\n", 1100)
)

// BenchmarkNeutralise measures what neutralising costs on the way to the
// terminal, against writing the same 64 KiB as they are (the baseline).
func BenchmarkNeutralise(b *testing.B) {
	doc, _ := json.Marshal(map[string]string{"text": plainText})
	b.Run("baseline-copy", func(b *testing.B) {
		b.SetBytes(int64(len(plainText)))
		for b.Loop() {
			var buf bytes.Buffer
			buf.WriteString(plainText)
		}
	})
	b.Run("Block-plain", func(b *testing.B) {
		b.SetBytes(int64(len(plainText)))
		for b.Loop() {
			_ = termsafe.Block(plainText)
		}
	})
	b.Run("Block-hostile", func(b *testing.B) {
		b.SetBytes(int64(len(hostileText)))
		for b.Loop() {
			_ = termsafe.Block(hostileText)
		}
	})
	b.Run("Writer-plain", func(b *testing.B) {
		b.SetBytes(int64(len(plainText)))
		w := termsafe.NewWriter(io.Discard)
		for b.Loop() {
			_, _ = io.WriteString(w, plainText)
		}
	})
	b.Run("JSON-plain", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			_ = termsafe.JSON(doc)
		}
	})
}
