package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/askback/askback/internal/cli"
	"github.com/askback/askback/internal/cli/iostreams"
)

// TestEarlierScripts runs scripts written in the style of the earlier
// mcp-tester (testdata/earlier) against the handbook fixture and compares
// every step's verdict with the earlier tool's on the same scripts
// (testdata/earlier/verdicts), except where we differ on purpose, which the
// verdicts file says with the reason.
func TestEarlierScripts(t *testing.T) {
	bin := buildServers(t)
	want := readVerdicts(t, "testdata/earlier/verdicts")
	io, in, out, errOut := iostreams.Test()
	in.WriteString("public\n") // for input_var in 10_input_var.mcp
	// progressTest takes a minute a step: a time limit of the scripts' (300
	// and 500 ms) runs out first however slow a loaded machine is, where
	// steps of 100 ms raced it (5 steps against 500 ms).
	server := filepath.Join(bin, "handbook") + " -step 1m"
	code := cli.Main(context.Background(), io, []string{"test", "--format", "json", "-c", server, "testdata/earlier"})
	var report struct {
		Scripts []struct {
			File  string `json:"file"`
			Error string `json:"error"`
			Steps []struct {
				Line    int    `json:"line"`
				Status  string `json:"status"`
				Text    string `json:"text"`
				Message string `json:"message"`
			} `json:"steps"`
		} `json:"scripts"`
	}
	if err := json.Unmarshal(out.Bytes(), &report); err != nil {
		t.Fatalf("exit %d, no JSON report: %v\nstdout: %s\nstderr: %s", code, err, out, errOut)
	}
	got := map[string]string{}
	for _, s := range report.Scripts {
		if s.Error != "" {
			t.Errorf("%s: %s", s.File, s.Error)
		}
		for _, st := range s.Steps {
			key := fmt.Sprintf("%s %d", filepath.Base(s.File), st.Line)
			verdict := "pass"
			if st.Status != "passed" {
				verdict = "fail"
			}
			got[key] = verdict
			w, ok := want[key]
			switch {
			case !ok:
				t.Errorf("%s (%s): a step the earlier tool does not have", key, st.Text)
			case w != verdict:
				t.Errorf("%s (%s): %s, want %s; %s", key, st.Text, verdict, w, st.Message)
			}
		}
	}
	for key := range want {
		if _, ok := got[key]; !ok {
			t.Errorf("%s: no such step in our report", key)
		}
	}
	if code != cli.ExitFailed {
		t.Errorf("exit %d, want %d (some steps fail on purpose)", code, cli.ExitFailed)
	}
}

// readVerdicts reads FILE LINE VERDICT [OURS # why] lines; the verdict we
// want is OURS when given.
func readVerdicts(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if len(fields) < 3 || len(fields) > 4 {
			t.Fatalf("%s: bad line %q", path, sc.Text())
		}
		if _, err := strconv.Atoi(fields[1]); err != nil {
			t.Fatalf("%s: bad line number in %q", path, sc.Text())
		}
		want[fields[0]+" "+fields[1]] = fields[len(fields)-1]
	}
	return want
}
