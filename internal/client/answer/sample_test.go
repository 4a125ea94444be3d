package answer

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestParseSample(t *testing.T) {
	cases := []struct {
		in      string
		want    Sample
		wantErr string
	}{
		{in: "A story.", want: Sample{Text: "A story."}},
		{in: "", want: Sample{Text: ""}},
		{in: `{"text": "T", "model": "m", "stopReason": "maxTokens", "role": "assistant"}`, want: Sample{Text: "T", Model: "m", StopReason: "maxTokens", Role: "assistant"}},
		{in: `{"text": "{not json"}`, want: Sample{Text: "{not json"}},
		{in: `{"txt": "x"}`, wantErr: `unknown field "txt"`},
		{in: `{"model": "m"}`, wantErr: `has no "text"`},
		{in: `{"text": "x", "role": "system"}`, wantErr: `role is assistant or user`},
		{in: `{"text": "x"} {}`, wantErr: "text after the JSON object"},
		{in: `{broken`, wantErr: `sample "{broken" is not a JSON object: invalid character 'b' looking for beginning of object key string`},
		// What a person writes is read by the one rule of internal/encoding/userjson:
		// a brace too many is text after the object, not the end of it.
		{in: `{"text":"hi"}}`, wantErr: `sample "{\"text\":\"hi\"}}" has text after the JSON object`},
		{in: `{"text":"hi"}]`, wantErr: `sample "{\"text\":\"hi\"}]" has text after the JSON object`},
		{in: `{"text":"a","Text":"b"}`, wantErr: `ambiguous JSON object: keys "text" and "Text" differ only in letter case`},
	}
	for _, c := range cases {
		got, err := ParseSample(c.in)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("ParseSample(%q) error = %v, want %q", c.in, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseSample(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
		// What String writes reads back the same.
		if again, err := ParseSample(got.String()); err != nil || again != got {
			t.Errorf("ParseSample(%q.String() = %q) = %+v, %v", c.in, got.String(), again, err)
		}
	}
}

func TestSampleResultDefaults(t *testing.T) {
	r := Sample{Text: "hi"}.Result()
	if r.Model != DefaultModel || r.Role != "assistant" || r.StopReason != "endTurn" || len(r.Content) != 1 {
		t.Errorf("Result() = %+v", r)
	}
}

func TestParseRoot(t *testing.T) {
	cases := []struct{ in, uri, name, err string }{
		{in: "file:///work/repo", uri: "file:///work/repo"},
		{in: "file:///work/repo=repo", uri: "file:///work/repo", name: "repo"},
		{in: "https://h/x?a=b=", uri: "https://h/x?a=b"},
		{in: "https://h/x?a=b=query", uri: "https://h/x?a=b", name: "query"},
		{in: "relative/path", err: "not an absolute URI"},
		{in: "=name", err: "not an absolute URI"},
		{in: "", err: "not an absolute URI"},
	}
	for _, c := range cases {
		r, err := ParseRoot(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseRoot(%q) error = %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || r.URI != c.uri || r.Name != c.name {
			t.Errorf("ParseRoot(%q) = %+v, %v; want %s %q", c.in, r, err, c.uri, c.name)
		}
	}
}

func TestSamplesInOrderThenNoAnswer(t *testing.T) {
	q := NewSamples(Sample{Text: "one"}, Sample{Text: "two"})
	chain := Chain{NewQueue(), q}
	if !CanSample(chain) || CanSample(Chain{NewQueue()}) || CanSample(nil) {
		t.Fatal("CanSample is wrong")
	}
	for _, want := range []string{"one", "two"} {
		r, err := chain.Sample(context.Background(), &SampleQuestion{})
		if err != nil || r.Content[0].(*mcp.TextContent).Text != want {
			t.Fatalf("Sample = %+v, %v; want %s", r, err, want)
		}
	}
	if _, err := chain.Sample(context.Background(), &SampleQuestion{}); err != ErrNoAnswer {
		t.Fatalf("after the last reply: %v, want ErrNoAnswer", err)
	}
	if len(q.Unused()) != 0 {
		t.Fatalf("Unused = %v", q.Unused())
	}
}

func FuzzParseSample(f *testing.F) {
	for _, s := range []string{"text", `{"text":"x","model":"m"}`, `{"text":1}`, `{`, "  {\"text\":\"\"}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseSample(s)
		if err != nil {
			return
		}
		again, err := ParseSample(got.String())
		if err != nil || again != got {
			t.Fatalf("%q: round trip through %q gave %+v, %v", s, got.String(), again, err)
		}
	})
}

func FuzzParseRoot(f *testing.F) {
	for _, s := range []string{"file:///a=b", "https://h/?q=1=", "x", "=", "a:b=c=d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRoot(s)
		if err == nil && (r == nil || r.URI == "") {
			t.Fatalf("%q: no error and no URI", s)
		}
	})
}
