package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/trace"
	"github.com/askback/askback/internal/client/wire"
	"github.com/askback/askback/internal/platform/outfile"
	"github.com/askback/askback/internal/text/credential"
	"github.com/spf13/cobra"
)

// addTraceFlags binds where the trace of the exchange goes.
func addTraceFlags(cmd *cobra.Command, o *ConnOptions) {
	f := cmd.Flags()
	f.StringVar(&o.TraceFile, "trace", "", "write every JSON-RPC message in and out to this file, one JSON line each (requestState shown by its length)")
	f.BoolVarP(&o.Verbose, "verbose", "v", false, "write the JSON-RPC trace to stderr")
	f.BoolVar(&o.ShowState, "show-state", false, "show requestState values in the trace as they are (for debugging your own server)")
	f.BoolVar(&o.ShowSecrets, "show-secrets", false, "show credentials in the trace as they are: header values, tokens in URLs, NAME=value in the command line (hidden otherwise)")
}

// prepare applies the profile and begins the trace, once.
func (o *ConnOptions) prepare(ios *iostreams.IOStreams) error {
	if o.prepared {
		return nil
	}
	if err := o.applyProfile(); err != nil {
		return err
	}
	if err := o.checkApplies(); err != nil {
		return err
	}
	if err := checkURLFlag(ios.ErrOut, "--url"+fromProfile(o.Profile), o.URL); err != nil {
		return err
	}
	if !o.ShowSecrets {
		// Added to those of the run's other servers (scan of several).
		ios.AddSecrets(append(credential.Secrets(o.URL, o.Headers), credential.CommandSecrets(o.Command)...)...)
	}
	ws, err := o.traceWriters(ios)
	if err != nil {
		return err
	}
	if len(ws) > 0 {
		o.traceTo = io.MultiWriter(ws...)
		o.recorder = o.newRecorder(o.traceSession)
		o.recorder.Info(o.traceInfo())
	}
	if o.traceShared != nil {
		o.traceShared.begun = true
	}
	o.prepared = true
	return nil
}

// traceWriters are where the trace goes: the --trace file (begun by the
// first session of the run), stderr for --verbose, and nowhere but the
// recorder's copy for --raw.
func (o *ConnOptions) traceWriters(ios *iostreams.IOStreams) ([]io.Writer, error) {
	var ws []io.Writer
	if o.TraceFile != "" {
		if o.traceShared == nil || !o.traceShared.begun {
			if err := checkOutPath("--trace", o.TraceFile); err != nil {
				return nil, err
			}
			f, err := outfile.Create(o.TraceFile, 0o600)
			if err != nil {
				return nil, usageErr("--trace: %v", err)
			}
			f.Close()
		}
		var w io.Writer = appendFile(o.TraceFile)
		if !o.ShowSecrets {
			// A server that echoes a credential in what it sends
			// must not leave it in the trace file either.
			w = ios.Hiding(w)
		}
		ws = append(ws, w)
	}
	if o.Verbose {
		ws = append(ws, ios.ErrOut)
	}
	if len(ws) == 0 && o.Raw {
		ws = append(ws, io.Discard) // --raw needs the recorder's copy of results
	}
	return ws, nil
}

// traceInfo is the first line of the trace: the client, the server (its
// credentials hidden unless --show-secrets) and the protocol asked for.
func (o *ConnOptions) traceInfo() map[string]any {
	info := map[string]any{"client": "mcp-tester " + Version()}
	switch {
	case o.ShowSecrets && o.Command != "":
		info["command"] = o.Command
	case o.Command != "":
		info["command"] = credential.RedactCommand(o.Command)
	case o.ShowSecrets:
		info["url"] = o.URL
		if len(o.Headers) > 0 {
			info["headers"] = o.Headers
		}
	default:
		info["url"] = credential.RedactURL(o.URL)
		if len(o.Headers) > 0 {
			info["headers"] = trace.RedactHeaders(o.Headers)
		}
	}
	if o.Protocol != "" {
		info["protocol"] = o.Protocol
	}
	return info
}

// sharedTrace is the trace of a run whose sessions each have a
// Recorder of their own (scan's servers, grade's listing and probes): one
// file, begun by the first, its lines counted from one start and naming
// their server or session.
type sharedTrace struct {
	begun bool
	start time.Time
}

// newRecorder is a Recorder of the trace prepare began, for the session
// named session (none: the trace of one session).
func (o *ConnOptions) newRecorder(session string) *trace.Recorder {
	opts := trace.Options{ShowState: o.ShowState, ShowSecrets: o.ShowSecrets, Server: o.traceServer, Session: session}
	if o.traceShared != nil {
		opts.Start = o.traceShared.start
	}
	return trace.New(o.traceTo, opts)
}

// sessionTrace is the observer of one more session of the run in the
// trace, its lines naming it; nil without a trace.
func (o *ConnOptions) sessionTrace(session string) wire.Observer {
	if o.traceTo == nil || o.TraceFile == "" && !o.Verbose {
		return nil
	}
	return o.newRecorder(session).Observe
}

// observer is what hears the wire for the trace, nil without one.
func (o *ConnOptions) observer() wire.Observer {
	if o.recorder == nil {
		return nil
	}
	return o.recorder.Observe
}

// appendFile is a writer that appends each write to a file, opening and
// closing it every time, so that no file stays open after the command.
type appendFile string

func (p appendFile) Write(b []byte) (int, error) {
	f, err := outfile.Append(string(p), 0o600)
	if err != nil {
		return 0, fmt.Errorf("trace: %w", err)
	}
	n, err := f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// addRawFlag adds --raw.
func addRawFlag(cmd *cobra.Command, o *ConnOptions) {
	cmd.Flags().BoolVarP(&o.Raw, "raw", "r", false, "print the final result exactly as the server sent it (JSON), without the go-sdk's typed decoding")
}

// printRaw prints the last result of method as it arrived.
func (o *ConnOptions) printRaw(w io.Writer, method string) error {
	var raw []byte
	if o.recorder != nil {
		raw = o.recorder.LastResult(method)
	}
	if raw == nil {
		return usageErr("--raw: the server sent no result for %s", method)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		_, err = w.Write(append(raw, '\n'))
		return err
	}
	buf.WriteByte('\n')
	_, err := w.Write(buf.Bytes())
	return err
}
