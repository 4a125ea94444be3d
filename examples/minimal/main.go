// Command minimal is the smallest complete server made with the toolkit,
// shown whole in docs/toolkit.md: one tool, book, that asks for a date and
// the size of the party, asks again when the answer does not do, and
// carries what it decided in round 1 (the table) to round 2 in a sealed
// requestState that can be used once. It serves stdio, or Streamable HTTP
// at /mcp with -http ADDR, to clients of both protocol eras.
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"time"

	"github.com/askback/askback/ask"
	"github.com/askback/askback/endpoint"
	"github.com/askback/askback/form"
	"github.com/askback/askback/keys"
	"github.com/askback/askback/replay"
	"github.com/askback/askback/reqstate"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BookIn is the tool's input.
type BookIn struct {
	Restaurant string `json:"restaurant" jsonschema:"where to book a table"`
}

// Booking is the form the tool asks.
type Booking struct {
	Date   string `json:"date" form:"title=Date,format=date"`
	People int    `json:"people" form:"title=How many people,min=1,max=12,default=2"`
}

// offer travels from round 1 to round 2 through the client, sealed.
type offer struct {
	Table int `json:"table"`
}

type booker struct {
	states *reqstate.Codec
	form   *form.Form[Booking]
}

func (b *booker) book(ctx context.Context, req *mcp.CallToolRequest, in BookIn) (*mcp.CallToolResult, any, error) {
	if !ask.Modes(req).Has(ask.Form) {
		return text("Not booked: this client cannot ask you for a date."), nil, nil
	}
	answer, answered := ask.Lookup(req.Params.InputResponses, "booking")
	if !answered { // round 1, or the answer is missing: ask
		return b.ask(req, "")
	}
	booking, err := b.form.Decode(answer)
	if errors.Is(err, form.ErrNotAccepted) {
		return ask.Stopped("Not booked", answer), nil, nil // "Not booked (decline)."
	}
	if err == nil {
		err = notPast(booking.Date)
	}
	if err != nil { // an answer that does not do: ask again, saying why
		return b.ask(req, " ("+err.Error()+")")
	}
	o, err := reqstate.Open[offer](ctx, b.states, req)
	if err != nil {
		return nil, nil, reqstate.ClientError(err) // forged, replayed, expired, another call's
	}
	return text(fmt.Sprintf("Booked table %d at %s on %s for %d.", o.Table, in.Restaurant, booking.Date, booking.People)), nil, nil
}

// ask asks for the booking and hands out the table offered, sealed.
func (b *booker) ask(req *mcp.CallToolRequest, why string) (*mcp.CallToolResult, any, error) {
	state, err := b.states.Issue(req, offer{Table: 7}, &reqstate.IssueOptions{SingleUse: true})
	if err != nil {
		return nil, nil, reqstate.ClientError(err)
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{"booking": b.form.Ask("Table 7 is free. For when, and for how many?" + why)},
		RequestState:  state,
	}, nil, nil
}

func notPast(date string) error {
	d, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return err
	}
	if d.Before(time.Now().Truncate(24 * time.Hour)) {
		return fmt.Errorf("%s has passed", date)
	}
	return nil
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP at /mcp on this address instead of stdio")
	flag.Parse()

	secret := make([]byte, 32) // one process; instances that share the work share one secret
	rand.Read(secret)
	states, err := reqstate.New(&reqstate.Options{
		Keys: []keys.Key{{ID: "1", Secret: secret}},
		// No authentication: every caller is anonymous, counted by its
		// address (endpoint names it), each with a sixteenth of the store.
		Replay: replay.NewMemory(nil),
	})
	if err != nil {
		log.Fatal(err)
	}
	b := &booker{states: states, form: form.Must[Booking](nil)}

	server := mcp.NewServer(&mcp.Implementation{Name: "minimal", Version: "1.0.0"}, nil)
	ask.EveryRound(server) // 2025-11-25 clients are asked every round, not only the first
	mcp.AddTool(server, &mcp.Tool{Name: "book", Description: "Books a table. Asks the user for the date and the size of the party."}, b.book)

	if *addr == "" {
		// Every message is checked before the go-sdk reads it: answers it
		// would read otherwise than other readers are refused.
		if err := server.Run(context.Background(), ask.StrictStdio()); err != nil {
			log.Fatal(err)
		}
		return
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", endpoint.New(func(*http.Request) *mcp.Server { return server }, nil))
	hs := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	log.Fatal(hs.ListenAndServe())
}
