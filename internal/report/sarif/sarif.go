// Package sarif writes SARIF 2.1.0 logs (the Static Analysis Results
// Interchange Format that code scanning reads) from rule descriptors and
// results: what `audit`, `inspect`, `test`, `catalog diff` and the scan
// print with --format sarif.
//
// A [Result] is located in a file (a `.mcp` script step, a line of a
// catalog snapshot), at a logical place (a JSON path into a server's
// catalog: tools.deploy.inputSchema.properties.environment), or both.
// The output is deterministic: rules sorted by id, results by where they
// are, no times or machine details, map keys sorted; characters that must
// not reach a terminal are written as \u escapes (internal/text/termsafe).
package sarif

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/askback/askback/internal/text/termsafe"
)

// Version is the SARIF version written.
const Version = "2.1.0"

// SchemaURI is the published JSON schema of SARIF 2.1.0 (OASIS, errata
// 01), the $schema of every log.
const SchemaURI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// FingerprintKey names the partial fingerprint every result carries: a
// hash of its rule, its logical path and its file, so that code scanning
// follows one finding from run to run even when lines move.
const FingerprintKey = "askbackFinding/v1"

// DefaultAnchor is the anchor of a run that names none: catalog.json, the
// server's catalog snapshot that docs/ci.md has a repository commit
// (mcp-tester catalog save -o catalog.json).
const DefaultAnchor = "catalog.json"

// Anchor says where code scanning shows the results of a report that has
// no file of its own to show them at (a live server's): the one location
// value every report's SARIF takes.
type Anchor struct {
	// File is the file (from the repository root) at which results about
	// the server are shown (a command's --sarif-file); "" names none.
	File string
	// Files are the files servers were read from, by the server's name
	// (scan --catalog): their results are shown there, not at File.
	Files map[string]string
	// Regions are where in those files the results about their servers
	// are, by the server's name and then the result's logical path: a
	// result not there is shown at the whole file.
	Regions map[string]map[string]Region
}

// RegionOf is the region of the result at path about server in the file
// the server was read from: the zero Region (the whole file) when not
// known.
func (a Anchor) RegionOf(server, path string) Region {
	return a.Regions[server][path]
}

// FileOf is the file at which the results about server are shown: the
// file it was read from, else File.
func (a Anchor) FileOf(server string) string {
	if f, ok := a.Files[server]; ok {
		return f
	}
	return a.File
}

// Level is how serious a result is.
type Level string

// The levels of SARIF.
const (
	Error   Level = "error"   // the check failed: fix it
	Warning Level = "warning" // a person should look
	Note    Level = "note"    // for information
	None    Level = "none"    // no judgement (a rule's result that is only reported)
)

func (l Level) valid() bool {
	switch l {
	case Error, Warning, Note, None:
		return true
	}
	return false
}

// Log is a SARIF log: one run per tool invocation.
type Log struct {
	Runs []*Run
}

// Tool is the program that made a run.
type Tool struct {
	Name           string // e.g. "mcp-tester"
	Version        string // its version; empty when unknown
	InformationURI string // where to read about it; empty for none
}

// Run is what one tool found in one invocation: the rules it checks and
// the results.
type Run struct {
	Tool  Tool
	Rules []Rule
	// Results refer to Rules by id. Every result's rule must be listed.
	Results []Result
	// Anchor is the file (relative to the repository root) at which a
	// result with no file of its own is shown: code scanning refuses a
	// whole log when one location has no file (only a logical path). A
	// catalog snapshot is a good anchor for findings about a server. Such
	// results are shown at its line 1. Empty means DefaultAnchor.
	Anchor string
	// Failed, when not empty, says why the tool could not do all it was
	// asked (a server that went away, a deadline): the run is then marked
	// not successful, with this as its notification.
	Failed string
}

// Rule describes one kind of result.
type Rule struct {
	ID   string // stable, unique in the run, e.g. "input-required-added"
	Name string // optional: a PascalCase name, e.g. "InputRequiredAdded"
	// Short is one line saying what the rule finds; Full may say more.
	// Short is required; Full and Help default to the one before.
	Short, Full string
	Help        string // what to do about it (plain text)
	HelpURI     string // where to read more; empty for none
	Level       Level  // the default level of its results (empty: warning)
	Tags        []string
	// SecuritySeverity, when not empty, is a score from "0.0" to "10.0":
	// code scanning shows it as the alert's severity (critical from 9.0,
	// high from 7.0, medium from 4.0, low below).
	SecuritySeverity string
}

// Result is one finding.
type Result struct {
	RuleID string
	// Level is the result's; empty means the rule's default.
	Level   Level
	Message string
	// Locations are where it was found, the first being where to look
	// first; at least one (a finding about a whole server is at the
	// logical path "server").
	Locations []Location
	// Properties are added to the result as its property bag.
	Properties map[string]any
}

// Location is a place in a file, a logical place, or both.
type Location struct {
	// File is the path of a file (relative paths are relative to the
	// repository root, as code scanning reads them), with Line and Column
	// from 1 when known (0: the whole file, or the line only).
	File         string
	Line, Column int
	// EndLine and EndColumn end the region when known (0: not known).
	EndLine, EndColumn int
	// Path is a logical location: a JSON path into a catalog
	// (tools.deploy.inputSchema.properties.environment) or another
	// qualified name; Kind says what it names (tool, prompt, resource,
	// parameter, property, server...).
	Path, Kind string
	// Description, when set, says what is at the location (e.g. the
	// command of a script step).
	Description string
}

// Write writes the log as one indented JSON document. It refuses a log
// that is not valid SARIF: a result whose rule is not listed, a rule id
// given twice, a level that is not a SARIF level, an empty message, a
// line without a file.
func (l *Log) Write(w io.Writer) error {
	b, err := l.Marshal()
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// Marshal returns what Write writes.
func (l *Log) Marshal() ([]byte, error) {
	doc := logDoc{Schema: SchemaURI, Version: Version, Runs: []runDoc{}}
	for i, r := range l.Runs {
		rd, err := r.doc()
		if err != nil {
			return nil, fmt.Errorf("sarif: run %d (%s): %w", i, r.Tool.Name, err)
		}
		doc.Runs = append(doc.Runs, rd)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("sarif: %w", err)
	}
	return termsafe.JSON(b.Bytes()), nil
}

func (r *Run) doc() (runDoc, error) {
	if r.Tool.Name == "" {
		return runDoc{}, fmt.Errorf("the tool has no name")
	}
	rules := slices.Clone(r.Rules)
	slices.SortStableFunc(rules, func(a, b Rule) int { return cmp.Compare(a.ID, b.ID) })
	index := map[string]int{}
	driver := driverDoc{Name: r.Tool.Name, Version: toolVersion(r.Tool.Version), InformationURI: r.Tool.InformationURI, Rules: []ruleDoc{}}
	for i, rule := range rules {
		if rule.ID == "" {
			return runDoc{}, fmt.Errorf("a rule has no id")
		}
		if _, dup := index[rule.ID]; dup {
			return runDoc{}, fmt.Errorf("rule %q is listed twice", rule.ID)
		}
		index[rule.ID] = i
		rd, err := rule.doc()
		if err != nil {
			return runDoc{}, fmt.Errorf("rule %q: %w", rule.ID, err)
		}
		driver.Rules = append(driver.Rules, rd)
	}
	results := slices.Clone(r.Results)
	slices.SortStableFunc(results, compareResults)
	doc := runDoc{Tool: toolDoc{Driver: driver}, Results: []resultDoc{}, ColumnKind: ColumnKind}
	for i, res := range results {
		n, ok := index[res.RuleID]
		if !ok {
			return runDoc{}, fmt.Errorf("result %d: rule %q is not listed", i, res.RuleID)
		}
		rd, err := res.doc(n, rules[n], cmp.Or(r.Anchor, DefaultAnchor))
		if err != nil {
			return runDoc{}, fmt.Errorf("result %d (%s): %w", i, res.RuleID, err)
		}
		doc.Results = append(doc.Results, rd)
	}
	inv := invocationDoc{ExecutionSuccessful: r.Failed == ""}
	if r.Failed != "" {
		inv.Notifications = []notificationDoc{{Level: Error, Message: plain(r.Failed)}}
	}
	doc.Invocations = []invocationDoc{inv}
	return doc, nil
}

func (rule Rule) doc() (ruleDoc, error) {
	level := rule.Level
	if level == "" {
		level = Warning
	}
	if !level.valid() {
		return ruleDoc{}, fmt.Errorf("level %q: use error, warning, note or none", rule.Level)
	}
	if strings.TrimSpace(rule.Short) == "" {
		return ruleDoc{}, fmt.Errorf("no short description")
	}
	// Code scanning wants all three descriptions: the longer ones fall
	// back to the shorter.
	full := cmp.Or(rule.Full, rule.Short)
	d := ruleDoc{ID: rule.ID, Name: rule.Name, HelpURI: rule.HelpURI, DefaultConfiguration: configDoc{Level: level},
		ShortDescription: plain(rule.Short), FullDescription: plain(full),
		Help: plain(cmp.Or(rule.Help, full))}
	if len(rule.Tags) > 0 || rule.SecuritySeverity != "" {
		d.Properties = map[string]any{}
		if len(rule.Tags) > 0 {
			tags := slices.Clone(rule.Tags)
			slices.Sort(tags)
			d.Properties["tags"] = slices.Compact(tags)
		}
		if rule.SecuritySeverity != "" {
			d.Properties["security-severity"] = rule.SecuritySeverity
		}
	}
	return d, nil
}

func (res Result) doc(index int, rule Rule, anchor string) (resultDoc, error) {
	if strings.TrimSpace(res.Message) == "" {
		return resultDoc{}, fmt.Errorf("the message is empty")
	}
	level := res.Level
	if level == "" {
		level = cmp.Or(rule.Level, Warning)
	}
	if !level.valid() {
		return resultDoc{}, fmt.Errorf("level %q: use error, warning, note or none", res.Level)
	}
	if len(res.Locations) == 0 {
		return resultDoc{}, fmt.Errorf("no location: code scanning needs one (a file, or a logical path such as \"server\")")
	}
	d := resultDoc{RuleID: res.RuleID, RuleIndex: index, Level: level, Message: plain(res.Message), Properties: res.Properties}
	var err error
	if d.Locations, err = res.locationDocs(anchor); err != nil {
		return resultDoc{}, err
	}
	first := res.Locations[0].anchored(anchor)
	sum := sha256.Sum256([]byte(res.RuleID + "\x00" + first.Path + "\x00" + filepath.ToSlash(first.File)))
	d.PartialFingerprints = map[string]string{FingerprintKey: hex.EncodeToString(sum[:16])}
	return d, nil
}

// locationDocs are the result's locations as the log writes them, one
// without a file or a line shown at the top of the anchor.
func (res Result) locationDocs(anchor string) ([]locationDoc, error) {
	var out []locationDoc
	for i, loc := range res.Locations {
		ld, err := loc.anchored(anchor).doc()
		if err != nil {
			return nil, fmt.Errorf("location %d: %w", i, err)
		}
		out = append(out, ld)
	}
	return out, nil
}

// anchored is loc, or, when it has no file and no line, the top of the
// anchor: code scanning refuses a whole log when one location has no
// file.
func (loc Location) anchored(anchor string) Location {
	if loc.File == "" && loc.Line == 0 && loc.Column == 0 {
		loc.File, loc.Line = anchor, 1
	}
	return loc
}

// check refuses a location code scanning cannot show: a line without a
// file, neither a file nor a path, a negative line or column, a column
// or an end without a start, an end before the start.
func (loc Location) check() error {
	switch {
	case loc.File == "" && (loc.Line != 0 || loc.Column != 0):
		return fmt.Errorf("a line without a file")
	case loc.File == "" && loc.Path == "":
		return fmt.Errorf("neither a file nor a logical path")
	case loc.Line < 0 || loc.Column < 0 || loc.EndLine < 0 || loc.EndColumn < 0:
		return fmt.Errorf("a negative line or column")
	case loc.Line == 0 && (loc.Column != 0 || loc.EndLine != 0 || loc.EndColumn != 0):
		return fmt.Errorf("a column or an end without a start line")
	case loc.EndLine != 0 && loc.EndLine < loc.Line:
		return fmt.Errorf("the region ends (line %d) before it starts (line %d)", loc.EndLine, loc.Line)
	}
	return nil
}

// doc is loc as the log writes it, once checked.
func (loc Location) doc() (locationDoc, error) {
	var d locationDoc
	if err := loc.check(); err != nil {
		return d, err
	}
	if loc.File != "" {
		// A location in a file always has a region: code scanning places a
		// result at a line (its upload rules require region.startLine), so
		// one whose place in the file is not known (a live server's text
		// shown at its catalog snapshot) is shown at the file's first line.
		pd := &physicalDoc{ArtifactLocation: artifactDoc{URI: FileURI(loc.File)},
			Region: &regionDoc{StartLine: max(loc.Line, 1), StartColumn: loc.Column, EndLine: loc.EndLine, EndColumn: loc.EndColumn}}
		d.PhysicalLocation = pd
	}
	if loc.Path != "" {
		d.LogicalLocations = []logicalDoc{{FullyQualifiedName: loc.Path, Kind: loc.Kind}}
	}
	if loc.Description != "" {
		m := plain(loc.Description)
		d.Message = &m
	}
	return d, nil
}

// plain is a message of plain text as SARIF reads it: a reader takes
// "[text](target)" for an embedded link, so every square bracket is
// written escaped (\[, \]), and so is a backslash right before one.
// A message that quotes what a server said can then link nowhere.
func plain(s string) messageDoc {
	if !strings.ContainsAny(s, "[]") {
		return messageDoc{Text: s}
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '[' || c == ']':
			b.WriteByte('\\')
		case c == '\\' && i+1 < len(s) && (s[i+1] == '[' || s[i+1] == ']'):
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return messageDoc{Text: b.String()}
}

// toolVersion is v without the "v" of a tag (v1.2.0 is 1.2.0): SARIF
// readers compare versions that start with a number.
func toolVersion(v string) string {
	if len(v) > 1 && v[0] == 'v' && v[1] >= '0' && v[1] <= '9' {
		return v[1:]
	}
	return v
}

// FileURI is the URI reference of a file path as SARIF writes it: a
// relative path stays relative, with slashes and its special characters
// percent-encoded ("a b.mcp" is "a%20b.mcp"); an absolute path is a file
// URI.
func FileURI(path string) string {
	p := filepath.ToSlash(path)
	if filepath.IsAbs(path) {
		if !strings.HasPrefix(p, "/") {
			p = "/" + p // a Windows drive: file:///C:/...
		}
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	p = strings.TrimPrefix(p, "./")
	u := (&url.URL{Path: p}).String()
	return u
}

// compareResults orders results by their first location (file, line,
// column, logical path), then rule and message.
func compareResults(a, b Result) int {
	var la, lb Location
	if len(a.Locations) > 0 {
		la = a.Locations[0]
	}
	if len(b.Locations) > 0 {
		lb = b.Locations[0]
	}
	return cmp.Or(
		cmp.Compare(la.File, lb.File),
		cmp.Compare(la.Line, lb.Line),
		cmp.Compare(la.Column, lb.Column),
		cmp.Compare(la.Path, lb.Path),
		cmp.Compare(a.RuleID, b.RuleID),
		cmp.Compare(a.Message, b.Message),
	)
}

// The document's shape: the part of SARIF 2.1.0 written here, with its
// members in the schema's names.
type (
	logDoc struct {
		Schema  string   `json:"$schema"`
		Version string   `json:"version"`
		Runs    []runDoc `json:"runs"`
	}
	runDoc struct {
		Tool        toolDoc         `json:"tool"`
		Invocations []invocationDoc `json:"invocations"`
		ColumnKind  string          `json:"columnKind"`
		Results     []resultDoc     `json:"results"`
	}
	toolDoc struct {
		Driver driverDoc `json:"driver"`
	}
	driverDoc struct {
		Name           string    `json:"name"`
		Version        string    `json:"version,omitempty"`
		InformationURI string    `json:"informationUri,omitempty"`
		Rules          []ruleDoc `json:"rules"`
	}
	ruleDoc struct {
		ID                   string         `json:"id"`
		Name                 string         `json:"name,omitempty"`
		ShortDescription     messageDoc     `json:"shortDescription"`
		FullDescription      messageDoc     `json:"fullDescription"`
		Help                 messageDoc     `json:"help"`
		HelpURI              string         `json:"helpUri,omitempty"`
		DefaultConfiguration configDoc      `json:"defaultConfiguration"`
		Properties           map[string]any `json:"properties,omitempty"`
	}
	configDoc struct {
		Level Level `json:"level"`
	}
	messageDoc struct {
		Text string `json:"text"`
	}
	invocationDoc struct {
		ExecutionSuccessful bool              `json:"executionSuccessful"`
		Notifications       []notificationDoc `json:"toolExecutionNotifications,omitempty"`
	}
	notificationDoc struct {
		Level   Level      `json:"level"`
		Message messageDoc `json:"message"`
	}
	resultDoc struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           int               `json:"ruleIndex"`
		Level               Level             `json:"level"`
		Message             messageDoc        `json:"message"`
		Locations           []locationDoc     `json:"locations,omitempty"`
		PartialFingerprints map[string]string `json:"partialFingerprints,omitempty"`
		Properties          map[string]any    `json:"properties,omitempty"`
	}
	locationDoc struct {
		PhysicalLocation *physicalDoc `json:"physicalLocation,omitempty"`
		LogicalLocations []logicalDoc `json:"logicalLocations,omitempty"`
		Message          *messageDoc  `json:"message,omitempty"`
	}
	physicalDoc struct {
		ArtifactLocation artifactDoc `json:"artifactLocation"`
		Region           *regionDoc  `json:"region,omitempty"`
	}
	artifactDoc struct {
		URI string `json:"uri"`
	}
	regionDoc struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn,omitempty"`
		EndLine     int `json:"endLine,omitempty"`
		EndColumn   int `json:"endColumn,omitempty"`
	}
	logicalDoc struct {
		FullyQualifiedName string `json:"fullyQualifiedName"`
		Kind               string `json:"kind,omitempty"`
	}
)
