package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"

	"github.com/askback/askback/connect"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// issueInput is what create_issue takes.
type issueInput struct {
	Repo  string `json:"repo" jsonschema:"the repository as OWNER/NAME"`
	Title string `json:"title" jsonschema:"the issue's title"`
}

type issueTool struct {
	connector *connect.Connector
	apiURL    string
	client    *http.Client
}

var repoPattern = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9-]{0,38})/([A-Za-z0-9._-]{1,100})$`)

// createIssue needs the caller's GitHub token. Without one it asks (a URL question) for
// the connection; on the repeated call it finds the token and creates the issue, or asks
// again when the browser flow has not finished.
func (t *issueTool) createIssue(ctx context.Context, req *mcp.CallToolRequest, in issueInput) (*mcp.CallToolResult, any, error) {
	m := repoPattern.FindStringSubmatch(in.Repo)
	if m == nil || m[2] == "." || m[2] == ".." {
		return text(fmt.Sprintf("%q is not a repository: write it as OWNER/NAME, for example octo-alice/hello.", in.Repo)), nil, nil
	}
	if in.Title == "" {
		return text("Give the issue a title."), nil, nil
	}
	tok, ask, err := t.connector.Require(ctx, req, "github")
	if err != nil {
		return nil, nil, err
	}
	if ask != nil {
		return ask, nil, nil
	}

	body, _ := json.Marshal(map[string]string{"title": in.Title})
	endpoint := t.apiURL + "/repos/" + url.PathEscape(m[1]) + "/" + url.PathEscape(m[2]) + "/issues"
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, nil, fmt.Errorf("build GitHub request: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/vnd.github+json")
	tok.SetAuthHeader(hreq)
	resp, err := t.client.Do(hreq)
	if err != nil {
		return nil, nil, fmt.Errorf("call GitHub: %w", err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))

	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		// The token was revoked or expired at GitHub: forget it and ask again.
		user, _ := t.connector.User(req)
		if err := t.connector.Disconnect(ctx, user, "github"); err != nil {
			return nil, nil, err
		}
		_, ask, err := t.connector.Require(ctx, req, "github")
		if err != nil {
			return nil, nil, err
		}
		if ask == nil {
			return text("GitHub did not accept the stored connection; run this again to reconnect."), nil, nil
		}
		return ask, nil, nil
	case resp.StatusCode != http.StatusCreated:
		var e struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(raw, &e)
		r := text(fmt.Sprintf("GitHub refused to create the issue (%s): %s", resp.Status, e.Message))
		r.IsError = true
		return r, nil, nil
	}
	var created struct {
		Number  int    `json:"number"`
		HTMLURL string `json:"html_url"`
	}
	if err := json.Unmarshal(raw, &created); err != nil {
		return nil, nil, fmt.Errorf("read GitHub's answer: %w", err)
	}
	return text(fmt.Sprintf("Created issue #%d in %s: %s", created.Number, in.Repo, created.HTMLURL)), nil, nil
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
