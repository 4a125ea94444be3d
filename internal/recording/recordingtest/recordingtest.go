// Package recordingtest records what a client says to a server, for tests
// that need recordings of real conversations: an observer for a session
// (session.Options.Observe, internal/client/wire) that writes every message it
// hears to a recording.Writer, as the proxy would have written it over
// stdio.
package recordingtest

import (
	"github.com/askback/askback/internal/client/wire"
	"github.com/askback/askback/internal/recording"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Observer writes each message it hears to w: those the client sent as
// client-to-server, the others as server-to-client. A message that does
// not encode, or a write that fails, is reported to fail.
func Observer(w *recording.Writer, fail func(error)) wire.Observer {
	return func(sent bool, msg jsonrpc.Message) {
		b, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			fail(err)
			return
		}
		dir := recording.ServerToClient
		if sent {
			dir = recording.ClientToServer
		}
		if err := w.Message(dir, b, nil); err != nil {
			fail(err)
		}
	}
}
