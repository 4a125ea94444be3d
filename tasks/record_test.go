package tasks

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestDetailedCarriesWhatTheStatusNeeds(t *testing.T) {
	at := time.Date(2026, 7, 28, 10, 0, 0, 0, time.UTC)
	base := Record{ID: "t", CreatedAt: at, UpdatedAt: at, TTL: time.Minute, PollInterval: time.Second,
		InputRequests: map[string]json.RawMessage{"k": json.RawMessage(`{"method":"elicitation/create","params":{}}`)},
		Result:        json.RawMessage(`{"content":[]}`),
		Error:         &ErrorObject{Code: -32603, Message: "boom"},
	}
	for _, tc := range []struct {
		status               Status
		input, result, error bool
	}{
		{StatusWorking, false, false, false},
		{StatusInputRequired, true, false, false},
		{StatusCompleted, false, true, false},
		{StatusFailed, false, false, true},
		{StatusCancelled, false, false, false},
	} {
		r := base
		r.Status = tc.status
		d := r.detailed()
		if d.ResultType != "complete" || d.TaskID != "t" || d.Status != tc.status {
			t.Errorf("%s: envelope %+v", tc.status, d)
		}
		if (d.InputRequests != nil) != tc.input || (d.Result != nil) != tc.result || (d.Error != nil) != tc.error {
			t.Errorf("%s: inputRequests=%v result=%v error=%v", tc.status, d.InputRequests != nil, d.Result != nil, d.Error != nil)
		}
		b, _ := json.Marshal(d)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		if m["ttlMs"] != float64(60000) || m["pollIntervalMs"] != float64(1000) || m["createdAt"] != "2026-07-28T10:00:00Z" {
			t.Errorf("%s: wire fields %s", tc.status, b)
		}
		for _, legacy := range []string{"ttl", "pollInterval", "requestState", "task"} {
			if _, ok := m[legacy]; ok {
				t.Errorf("%s: carries %q", tc.status, legacy)
			}
		}
	}
	r := base
	r.TTL = 0
	b, _ := json.Marshal(r.info())
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	if v, ok := m["ttlMs"]; !ok || v != nil {
		t.Errorf("unlimited TTL must be ttlMs:null, got %s", b)
	}
}

func TestExpired(t *testing.T) {
	at := time.Now()
	r := &Record{CreatedAt: at, TTL: time.Minute}
	if r.Expired(at.Add(59*time.Second)) || !r.Expired(at.Add(time.Minute)) {
		t.Error("TTL boundary wrong")
	}
	if (&Record{CreatedAt: at}).Expired(at.Add(1000 * time.Hour)) {
		t.Error("a zero TTL is unlimited")
	}
}

func TestStatus(t *testing.T) {
	for s, terminal := range map[Status]bool{StatusWorking: false, StatusInputRequired: false, StatusCompleted: true, StatusFailed: true, StatusCancelled: true} {
		if s.Terminal() != terminal || !s.Valid() {
			t.Errorf("%s: terminal %v valid %v", s, s.Terminal(), s.Valid())
		}
	}
	if Status("done").Valid() {
		t.Error(`"done" is no status`)
	}
}

func TestSummary(t *testing.T) {
	long := strings.Repeat("é", 300)
	for _, tc := range []struct {
		res  *mcp.CallToolResult
		want string
	}{
		{&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Rollout complete.\nDetails follow."}}}, "Rollout complete."},
		{&mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "bad input"}}}, "The tool reported an error: bad input"},
		{&mcp.CallToolResult{Content: []mcp.Content{}}, "Completed."},
		{&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: long}}}, strings.Repeat("é", 199) + "…"},
	} {
		if got := summary(tc.res); got != tc.want {
			t.Errorf("summary = %q, want %q", got, tc.want)
		}
	}
}
