// Package recording reads and writes recordings: what a client and a
// server said to each other through `mcp-tester proxy`, every JSON-RPC
// message with its direction, its time and the transport's facts, one JSON
// object a line.
//
// The first line is a [Header]; every other line is an [Entry]. A Writer
// writes each entry with one write as it happens, so a proxy that is killed
// leaves a recording that reads up to its last whole line; a Reader takes a
// last line cut short as the end of such a recording ([Recording.Truncated])
// and refuses anything else that is not what a Writer writes, naming the line.
//
// Credentials are never written: a Writer hides the secrets it is given (and
// those added while it runs, such as an Authorization header a client sent)
// in every spelling [credential.Hider] knows, the values of a client's
// arguments and answers that are secrets by name or form are written as
// [credential.Hidden] (see [credential.HideMessage]) and hidden wherever a
// server echoes them, and a requestState is written as a note of its
// length unless ShowState is set.
package recording

import (
	"encoding/json"
	"time"
)

// Format names the format of a recording; it is the first field of its
// first line.
const Format = "askback-recording/1"

// Transports of a Header.
const (
	TransportStdio = "stdio"           // the proxy ran the server as a command
	TransportHTTP  = "streamable-http" // the proxy forwarded Streamable HTTP
	TransportSSE   = "sse"             // the proxy forwarded the HTTP+SSE transport of 2024-11-05
)

// Directions of an Entry.
const (
	ClientToServer = "c2s"
	ServerToClient = "s2c"
)

// Kinds of an Entry that carries no JSON-RPC message.
const (
	// EventHTTP is an HTTP exchange that carried no JSON-RPC message: a 401
	// challenge, metadata read from a well-known address, a redirect, an
	// accepted notification (202), a closed session (DELETE).
	EventHTTP = "http"
	// EventNotJSON is a frame that was not JSON (a stray line on a stdio
	// server's stdout, an HTML page); Raw holds its beginning.
	EventNotJSON = "not-json"
	// EventNotRPC is a frame that was JSON but no JSON-RPC message (a JSON
	// log line on a stdio server's stdout); Message holds it as it came,
	// and Note why it is none. A reader skips it, with a warning; a `msg`
	// of the same kind in a recording of an earlier proxy is read as one.
	EventNotRPC = "not-jsonrpc"
	// EventServerGone is the end of the server: its process exited or its
	// connection broke. Note says how.
	EventServerGone = "server-gone"
	// EventClientGone is the end of the client: it closed its side.
	EventClientGone = "client-gone"
	// EventLimit is where the recording stopped at its size limit; the
	// proxy went on forwarding, unrecorded.
	EventLimit = "limit"
	// EventEnd is the last line of a recording closed in order.
	EventEnd = "end"
)

// Header is the first line of a recording.
type Header struct {
	// Format is [Format].
	Format string `json:"format"`
	// Started is when the recording began, in UTC.
	Started time.Time `json:"started"`
	// Transport is one of the Transport constants.
	Transport string `json:"transport"`
	// Server is the server's command line or URL, credentials hidden.
	Server string `json:"server"`
	// Listen is the address the proxy listened on (HTTP only).
	Listen string `json:"listen,omitempty"`
	// Writer names the program that wrote the recording and its version.
	Writer string `json:"writer,omitempty"`
}

// Entry is one line of a recording after the header: a JSON-RPC message
// (Message set, Event empty) or another fact (Event set).
type Entry struct {
	// At is the time since Header.Started, in milliseconds.
	At float64 `json:"t_ms"`
	// Dir is ClientToServer or ServerToClient; for events, the side the
	// event concerns, when there is one.
	Dir string `json:"dir,omitempty"`
	// Message is one JSON-RPC message as it crossed the proxy, with
	// credentials hidden and requestState noted by its length unless the
	// recording was made with ShowState; with EventNotRPC, the JSON frame
	// that was none.
	Message json.RawMessage `json:"msg,omitempty"`
	// Event is one of the Event constants when the entry is no message.
	Event string `json:"event,omitempty"`
	// HTTP holds the transport's facts of an HTTP recording.
	HTTP *HTTP `json:"http,omitempty"`
	// Raw is the beginning of a frame that was not JSON (EventNotJSON).
	Raw string `json:"raw,omitempty"`
	// Note says more about an event, in words.
	Note string `json:"note,omitempty"`
}

// HTTP is what an HTTP recording keeps of the exchange that carried an
// entry.
type HTTP struct {
	// Method is the HTTP method of the request (POST, GET, DELETE).
	Method string `json:"method,omitempty"`
	// Path is the request's path and query, credentials hidden.
	Path string `json:"path,omitempty"`
	// Status is the HTTP status of the response.
	Status int `json:"status,omitempty"`
	// Session labels the Mcp-Session-Id of the exchange ("s1", "s2", …,
	// in the order they appeared): the id itself lets whoever holds it
	// speak in the session, so it is not written.
	Session string `json:"session,omitempty"`
	// Stream labels the HTTP exchange that carried the message: "post-N"
	// for the Nth POST, "get-N" for the Nth GET stream.
	Stream string `json:"stream,omitempty"`
	// EventID is the SSE event id the message came with, if any.
	EventID string `json:"event_id,omitempty"`
	// LastEventID is the Last-Event-ID a GET sent to resume a stream.
	LastEventID string `json:"last_event_id,omitempty"`
	// ContentType is the response's media type ("application/json",
	// "text/event-stream").
	ContentType string `json:"content_type,omitempty"`
	// ProtocolVersion is the request's MCP-Protocol-Version header.
	ProtocolVersion string `json:"protocol_version,omitempty"`
}

// IsMessage reports whether e carries a JSON-RPC message (or, in a
// recording of an earlier proxy, a JSON frame recorded as one: Walk
// hands such a frame to its Visitor as an EventNotRPC, and a batch as its
// messages).
func (e Entry) IsMessage() bool { return e.Event == "" }
