package ask_test

import (
	"encoding/json"
	"testing"

	"github.com/askback/askback/ask"
	"github.com/askback/askback/internal/bench/benchratio"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkCheckMessage: the check every message of a strict transport or
// of endpoint gets, against what the go-sdk does with the same bytes
// anyway (decode the message, then its params), taking turns
// (x-baseline is the ratio of CPU time per message).
func BenchmarkCheckMessage(b *testing.B) {
	msgs := map[string][]byte{
		"round 2": []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}},"name":"deploy","arguments":{"service":"api"},"inputResponses":{"target":{"action":"accept","content":{"environment":"production","confirm":true}}},"requestState":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}}`),
		"round 1": []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}},"name":"deploy","arguments":{"service":"api"}}}`),
	}
	for name, msg := range msgs {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			benchratio.Interleave(b, func() {
				if ask.CheckMessage(msg) != nil {
					b.Fatal("refused")
				}
			}, func() {
				m, err := jsonrpc.DecodeMessage(msg)
				if err != nil {
					b.Fatal(err)
				}
				var p mcp.CallToolParamsRaw
				if err := json.Unmarshal(m.(*jsonrpc.Request).Params, &p); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
