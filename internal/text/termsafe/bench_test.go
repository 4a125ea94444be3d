package termsafe_test

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/askback/askback/internal/bench/benchratio"
	"github.com/askback/askback/internal/text/termsafe"
)

// A server's text as most of it is: plain, with line breaks; and as a
// hostile server sends it.
var (
	plainText   = strings.Repeat("Rolling out auth-service 2.4.1 to production – 50 % done.\n", 1100)
	hostileText = strings.Repeat("Rolling out \x1b[2J auth-service\u202e 2.4.1 to production.\n", 1100)
)

// BenchmarkNeutralise measures what neutralising 64 KiB of a server's text
// costs on the way to the terminal, each form against writing the same
// bytes as they are (the baseline), in turn in the same run. Each reports
// its ratio as x-baseline.
func BenchmarkNeutralise(b *testing.B) {
	doc, _ := json.Marshal(map[string]string{"text": plainText})
	copyText := func() {
		var buf bytes.Buffer
		buf.WriteString(plainText)
	}
	w := termsafe.NewWriter(io.Discard)
	for _, c := range []struct {
		name string
		run  func()
	}{
		{"Block-plain", func() { _ = termsafe.Block(plainText) }},
		{"Writer-plain", func() { _, _ = io.WriteString(w, plainText) }},
		{"JSON-plain", func() { _ = termsafe.JSON(doc) }},
		{"Block-hostile", func() { _ = termsafe.Block(hostileText) }},
	} {
		b.Run(c.name, func(b *testing.B) { benchratio.Interleave(b, c.run, copyText) })
	}
}
