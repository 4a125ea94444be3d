package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askback/askback/internal/cli/iostreams"
)

// A catalog file past the scan's budget (2,000 tools of 2 KB
// descriptions, 4 MB) gets one finding for what was not read, not one
// per text: scan --catalog reads the file as the scan of a server reads
// its listing.
func TestScanCatalogPastItsBudgetIsOneFinding(t *testing.T) {
	desc := strings.Repeat("Returns the weather of a city as a short summary. ", 40)
	var tools []string
	for i := range 2000 {
		tools = append(tools, fmt.Sprintf(`{"name":"weather_%d","description":%q,"inputSchema":{"type":"object"}}`, i, desc))
	}
	file := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(file, []byte(`{"tools":[`+strings.Join(tools, ",")+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ios, _, out, errOut := iostreams.Test()
	if code := Main(context.Background(), ios, []string{"scan", "--catalog", file, "--format", "json", "--fail-on", "never"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Findings []struct {
			Rule, Path, Severity string
		} `json:"findings"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	var unread []string
	for _, f := range rep.Findings {
		if f.Rule == "MCPS009" {
			unread = append(unread, f.Severity+" at "+f.Path)
		}
	}
	if len(unread) != 1 || unread[0] != "high at $" {
		t.Errorf("findings for what was not read: %v; want one, high, at $", unread)
	}
}
