package main

import (
	"testing"

	"github.com/askback/askback/asktest"
)

// The fixtures keep the rules of asking, in both eras: tampered, replayed
// and misplaced states are refused, nothing is asked of a client that did
// not declare it, declines give normal results (the tests above drive the
// rounds by hand for what the audit does not try: a state of one tool
// sent to another, a state used twice).
func TestKeepsTheRulesOfAsking(t *testing.T) {
	asktest.EachEra(t, func(t *testing.T, era asktest.Era) {
		codec, err := newCodec("")
		if err != nil {
			t.Fatal(err)
		}
		server := newServer(codec)
		addTaskFixtures(server)
		asktest.Audit(t, asktest.Server(server), &asktest.AuditOptions{Era: era})
	})
}
