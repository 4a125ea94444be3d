package report

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askback/askback/internal/report/ghactions"
	"github.com/askback/askback/internal/report/sarif"
)

func TestChoice(t *testing.T) {
	var f string
	c := NewChoice(&f, Text, JSON, SARIF)
	if f != Text || c.String() != Text {
		t.Fatalf("default %q, want text", f)
	}
	if err := c.Set(SARIF); err != nil || f != SARIF {
		t.Fatalf("Set(sarif): %v, %q", err, f)
	}
	err := c.Set("xml")
	if err == nil || err.Error() != `"xml": use text, json or sarif` {
		t.Fatalf("Set(xml): %v", err)
	}
	if c.Type() != "text|json|sarif" {
		t.Errorf("Type %q", c.Type())
	}
}

// writers renders each format as its name, so that the test sees which
// one Emit chose.
func writers() Writers {
	named := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s+"\n"); return err }
	}
	return Writers{
		Text: named("text"), JSON: named("json"), Markdown: named("markdown"),
		SARIF:       func(tool sarif.Tool) *sarif.Run { return &sarif.Run{Tool: tool} },
		Annotations: func() []ghactions.Annotation { return []ghactions.Annotation{{Level: ghactions.Error, Message: "m"}} },
	}
}

func TestEmit(t *testing.T) {
	for _, tc := range []struct{ format, out, workflow string }{
		{Text, "text\n", ""},
		{JSON, "json\n", ""},
		{Markdown, "markdown\n", ""},
		{GitHub, "text\n", "::error::m\n"},
	} {
		var out, wf bytes.Buffer
		if err := Emit(Out{Out: &out, Workflow: &wf}, tc.format, writers()); err != nil {
			t.Fatal(err)
		}
		if out.String() != tc.out || wf.String() != tc.workflow {
			t.Errorf("%s: out %q, workflow %q; want %q, %q", tc.format, out.String(), wf.String(), tc.out, tc.workflow)
		}
	}
	var out bytes.Buffer
	if err := Emit(Out{Out: &out, Tool: sarif.Tool{Name: "mcp-tester", Version: "1"}}, SARIF, writers()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"name": "mcp-tester"`) || !strings.Contains(out.String(), `"runs"`) {
		t.Errorf("sarif: %s", out.String())
	}
	// A command whose text went out as it ran has no Text: github adds
	// the annotations only.
	ws := writers()
	ws.Text = nil
	out.Reset()
	var wf bytes.Buffer
	if err := Emit(Out{Out: &out, Workflow: &wf}, GitHub, ws); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 || wf.String() != "::error::m\n" {
		t.Errorf("github without text: %q, %q", out.String(), wf.String())
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.xml")
	hide := func(s string) string { return strings.ReplaceAll(s, "s3cret", "[hidden]") }
	// A secret split over two writes is hidden too: the file is hidden whole.
	err := WriteFile("--junit", path, hide, func(w io.Writer) error {
		io.WriteString(w, "<a>s3")
		_, err := io.WriteString(w, "cret</a>")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if string(data) != "<a>[hidden]</a>" {
		t.Errorf("written %q", data)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm()&0o044 != 0o044 {
		t.Errorf("mode %v: a report is readable by others", fi.Mode())
	}

	// A report that fails half-way leaves the file as it was.
	err = WriteFile("--junit", path, nil, func(w io.Writer) error {
		io.WriteString(w, "half")
		return errors.New("broken")
	})
	if err == nil || err.Error() != "--junit: broken" {
		t.Errorf("err %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "<a>[hidden]</a>" {
		t.Errorf("after a failed report: %q", data)
	}

	// A symbolic link is refused, and what it points to left alone.
	link := filepath.Join(dir, "link.xml")
	if err := os.Symlink(path, link); err != nil {
		t.Skip(err)
	}
	if err := WriteFile("--html", link, nil, func(w io.Writer) error { return nil }); err == nil || !strings.HasPrefix(err.Error(), "--html: ") {
		t.Errorf("link: %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "<a>[hidden]</a>" {
		t.Errorf("through the link: %q", data)
	}

	if err := WriteFile("--junit", "", nil, nil); err != nil {
		t.Errorf("no path: %v", err)
	}
}
