package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/catalog"
	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Every text of a server's that the page keeps of a call is cut to its
// bound, as the message log's are: a progress notification, a task's
// status, the question waiting (its message, key and link) and the
// questions of the timeline. A running call's page reloads itself every
// second; a server's text of megabytes must not come with each reload.
func TestServerTextIsCut(t *testing.T) {
	s, h := guarded(t)
	cl := &call{ID: 1, Kind: "tool", Name: "slow", Started: testNow, cancel: func() {}}
	s.calls = append(s.calls, cl)
	big := func(name string) string { return name + strings.Repeat(name[:1], 1<<20) }
	progress, status, message, key, link, asked := big("progress"), big("status"), big("message"), big("key"), big("link"), big("asked")

	s.onProgress(session.Progress{Tool: "slow", Progress: 1, Total: 3, Message: progress})
	s.onTask(taskclient.Update{TaskID: "t1", Status: tasks.StatusWorking, StatusMessage: status})
	s.heard(exchange.Entry{Round: 1, Via: exchange.ViaInputRequired, Key: key, Params: &mcp.ElicitParams{Mode: "url", Message: asked, URL: "https://example.com/" + link}})
	cl.TaskRun = nil // the task's own status section is cut already (tasks.go); this is the status line's

	ctx, cancel := context.WithCancel(context.Background())
	answered := make(chan error, 1)
	go func() {
		q := &answer.Question{Key: key, Round: 2, Via: exchange.ViaInputRequired, Params: &mcp.ElicitParams{Mode: "url", Message: message, URL: "https://example.com/" + link}}
		_, err := (&pageAnswerer{s: s}).Answer(ctx, q)
		answered <- err
	}()
	for {
		s.mu.Lock()
		waiting := cl.Pending != nil
		s.mu.Unlock()
		if waiting {
			break
		}
		time.Sleep(time.Millisecond)
	}

	rec := get(t, s, h, "/calls/1")
	body := rec.Body.String()
	if rec.Code != 200 {
		t.Fatalf("GET /calls/1: %d %s", rec.Code, body)
	}
	if len(body) > 1<<20 {
		t.Errorf("the call's page is %d bytes", len(body))
	}
	for _, text := range []string{progress, status, message, key, link, asked} {
		if strings.Contains(body, text) {
			t.Errorf("the page shows %.8s… whole (%d bytes)", text, len(text))
		}
		if !strings.Contains(body, text[:32]) {
			t.Errorf("the page does not show the start of %.8s…", text)
		}
	}
	if !strings.Contains(body, "bytes more)") {
		t.Error("the page does not say what it cut")
	}
	cancel()
	<-answered
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(cl.Progress) > 4<<10+64 || len(cl.Task) > 4<<10+64 {
		t.Errorf("the call keeps a progress of %d bytes, a task status of %d", len(cl.Progress), len(cl.Task))
	}
	if q := cl.Questions[0]; len(q.Key) > 4<<10+64 || len(q.Params.Message) > maxBody+64 || len(q.Params.URL) > maxBody+64 {
		t.Errorf("the timeline keeps a question of %d bytes, a key of %d, a URL of %d", len(q.Params.Message), len(q.Key), len(q.Params.URL))
	}
}

// The server's listing is kept whole (a call needs its names and
// schemas); what the server's page shows of it is cut.
func TestListingShownCut(t *testing.T) {
	long := strings.Repeat("d", 1<<20)
	l := catalog.Listing{
		Tools:     []*mcp.Tool{{Name: "deploy", Title: long, Description: long}},
		Prompts:   []*mcp.Prompt{{Name: "p", Title: long, Description: long}},
		Resources: []*mcp.Resource{{URI: "file:///r", Name: long, Title: long, Description: long}},
		Templates: []*mcp.ResourceTemplate{{URITemplate: "file:///{x}", Title: long, Description: long}},
	}
	v := &connView{}
	v.showListing(l)
	for what, n := range map[string]int{
		"a tool's title": len(v.Tools[0].Title), "a tool's description": len(v.Tools[0].Description),
		"a prompt's title": len(v.Prompts[0].Title), "a prompt's description": len(v.Prompts[0].Description),
		"a resource's name": len(v.Resources[0].Name), "a resource's description": len(v.Resources[0].Description),
		"a template's title": len(v.Templates[0].Title), "a template's description": len(v.Templates[0].Description),
	} {
		if n > maxBody+64 {
			t.Errorf("%s is shown whole (%d bytes)", what, n)
		}
	}
	if len(l.Tools[0].Description) != 1<<20 || v.Tools[0].Name != "deploy" || v.Resources[0].URI != "file:///r" {
		t.Error("the listing kept is cut, or a name a call needs")
	}
}
