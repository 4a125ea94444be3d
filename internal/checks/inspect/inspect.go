// Package inspect rates how well an MCP server describes itself to clients
// and to the people behind them: a score from 0 to 100 made of named
// criteria, each with findings that say what is wrong and what to do about
// it, and a summary of which tools ask the user questions (elicitation).
//
// Evaluate works on what a client saw (the server's info and its lists),
// so it needs no connection and its rules can be tested on plain values;
// the checks that do talk to the network or the server (icons, probes) put
// their results into the Server before Evaluate reads them.
package inspect

import (
	"strconv"

	"github.com/askback/askback/internal/catalog"
	"github.com/askback/askback/internal/text/optname"
)

// Server is what a client saw of a server (its listing, catalog.List)
// and what the checks that talk to the network or the server found.
type Server struct {
	catalog.Listing
	// Icons holds the results of checking icons; nil when not checked.
	Icons []IconCheck `json:"icons,omitempty"`
	// Probes holds the results of calling read-only tools; nil when not
	// probed.
	Probes []Probe `json:"probes,omitempty"`
}

// Probe is what calling one read-only tool, or getting one prompt, with
// sample arguments showed.
type Probe struct {
	// Tool or Prompt names what was probed.
	Tool      string     `json:"tool,omitempty"`
	Prompt    string     `json:"prompt,omitempty"`
	Args      any        `json:"args"`
	Questions []Question `json:"questions,omitempty"`
	// Error is what went wrong, if the call failed.
	Error string `json:"error,omitempty"`
}

// Question is one question a probed tool asked.
type Question struct {
	Key     string `json:"key,omitempty"`
	Mode    string `json:"mode"`
	Message string `json:"message"`
}

// Report is the outcome of Evaluate.
type Report struct {
	Server   string `json:"server"`
	Version  string `json:"version,omitempty"`
	Protocol string `json:"protocolVersion"`
	Counts   Counts `json:"counts"`
	// Declares lists the capabilities the server declared, e.g.
	// "resources (subscribe)".
	Declares []string `json:"declares"`
	// ClientCapabilities are what the client that listed the server
	// declared: a server may offer more to a client that declares more.
	ClientCapabilities []string    `json:"clientCapabilities"`
	Score              int         `json:"score"`
	Criteria           []Criterion `json:"criteria"`
	// Errors are the lists the server declared but failed to give.
	Errors []Finding `json:"errors,omitempty"`
	// Partial says that the score leaves out what the lists of Errors
	// would have held: it is no score of the whole server.
	Partial   bool        `json:"partial,omitempty"`
	Elicit    Elicitation `json:"elicitation"`
	IconsSeen int         `json:"iconsSeen"`
	// Name names one of the caller's options in its terms, for the advice
	// of WriteText that points at it (a command line's flag); nil, or "",
	// names it as this package does ([Option.String]). The caller sets it.
	Name optname.Namer[Option] `json:"-"`
}

// Option is one of the caller's choices the report's advice points at;
// [Report.Name] words it for the caller.
type Option int

// The options the report's advice points at.
const (
	// OptionProbe is probing: calling read-only tools and getting prompts
	// to see which ask, the results of which are [Server.Probes].
	OptionProbe Option = iota + 1
)

// String names o in this package's terms.
func (o Option) String() string {
	switch o {
	case OptionProbe:
		return "probing (Server.Probes)"
	}
	return "Option(" + strconv.Itoa(int(o)) + ")"
}

// Counts are the sizes of the server's lists.
type Counts struct {
	Tools     int `json:"tools"`
	Prompts   int `json:"prompts"`
	Resources int `json:"resources"`
	Templates int `json:"resourceTemplates"`
}

// Criterion is one named part of the score.
type Criterion struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Weight is the most points the criterion gives.
	Weight int `json:"weight"`
	// Points is what the server earned, from 0 to Weight.
	Points float64 `json:"points"`
	// Applies is false when the criterion says nothing about this server
	// (it then does not count toward the score).
	Applies  bool      `json:"applies"`
	Findings []Finding `json:"findings,omitempty"`
}

// Finding is one concrete problem and what to do about it.
type Finding struct {
	// Subject names what the finding is about, e.g. `tool "rm"`.
	Subject string `json:"subject,omitempty"`
	Problem string `json:"problem"`
	Advice  string `json:"advice"`
}

// Elicitation summarizes which tools ask the user.
type Elicitation struct {
	// Tools lists the tools that ask or say they do, in name order.
	Tools []ElicitingTool `json:"tools"`
	// Prompts lists the prompts a probe saw asking, in name order.
	Prompts []ElicitingTool `json:"prompts,omitempty"`
	// Probed is whether read-only tools were called to find out.
	Probed bool `json:"probed"`
}

// ElicitingTool is a tool (or prompt) that asks the user or says it does.
type ElicitingTool struct {
	Name string `json:"name"`
	// Said is whether the tool's description or schema says it asks.
	Said bool `json:"said"`
	// Asked holds the questions a probe saw.
	Asked []Question `json:"asked,omitempty"`
}
