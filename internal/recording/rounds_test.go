package recording

import (
	"encoding/json"
	"testing"
)

// The rule of openRounds.Continue: a later round is the call whose state it
// sends back untouched; where no shown state tells, its answers' keys,
// then its arguments, then the earliest.
func TestContinueTakesTheCallWhoseStateComesBack(t *testing.T) {
	str := func(s string) *string { return &s }
	args := json.RawMessage(`{"service":"auth"}`)
	other := json.RawMessage(`{"service":"web"}`)
	answers := func(keys ...string) map[string]json.RawMessage {
		m := map[string]json.RawMessage{}
		for _, k := range keys {
			m[k] = json.RawMessage(`{"action":"accept"}`)
		}
		return m
	}
	round := func(keys []string, state *string, a json.RawMessage) Round {
		return Round{Method: "tools/call", Name: "deploy", Args: a, Keys: keys, State: state}
	}
	for _, tc := range []struct {
		name string
		open []Round // the calls waiting, named 0, 1, … in order
		p    Params
		want int // -1: a new call
	}{
		{"the state sent back, whatever it answers",
			[]Round{round([]string{"target"}, str("first"), args), round([]string{"confirm"}, str("second"), args)},
			Params{Arguments: args, InputResponses: answers("target", "confirm"), RequestState: str("second")}, 1},
		{"a state no round was issued with continues none",
			[]Round{round([]string{"target"}, str("first"), args)},
			Params{Arguments: args, InputResponses: answers("target"), RequestState: str("elsewhere")}, -1},
		{"a round issued with a state is not continued without it",
			[]Round{round([]string{"target"}, str("first"), args)},
			Params{Arguments: args, InputResponses: answers("target")}, -1},
		{"a state sent back comes before a round issued with none",
			[]Round{round([]string{"target"}, nil, args), round([]string{"target"}, str("second"), other)},
			Params{Arguments: args, InputResponses: answers("target"), RequestState: str("second")}, 1},
		{"hidden states: the note of another length is another state",
			[]Round{round([]string{"target"}, str(StateNote("aa")), args), round([]string{"target"}, str(StateNote("bbb")), args)},
			Params{Arguments: args, InputResponses: answers("target"), RequestState: str(StateNote("ccc"))}, 1},
		{"hidden states of one length: the keys, then the arguments",
			[]Round{round([]string{"confirm"}, str(StateNote("aa")), args), round([]string{"target"}, str(StateNote("bb")), other), round([]string{"target"}, str(StateNote("cc")), args)},
			Params{Arguments: args, InputResponses: answers("target"), RequestState: str(StateNote("dd"))}, 2},
		{"a hidden state sent back, whatever it answers",
			[]Round{round([]string{"target"}, str(StateNote("first-1")), args), round([]string{"confirm"}, str(StateNote("second-2")), args)},
			Params{Arguments: args, InputResponses: answers("target", "confirm"), RequestState: str(StateNote("second-2"))}, 1},
		{"no answers to keys it asked, no state: a new call",
			[]Round{round([]string{"target"}, nil, args)},
			Params{Arguments: args, InputResponses: answers("confirm")}, -1},
		{"no state: the keys the round asked",
			[]Round{round([]string{"confirm"}, nil, args), round([]string{"target"}, nil, args)},
			Params{Arguments: args, InputResponses: answers("target")}, 1},
		{"no state, several alike: the earliest",
			[]Round{round([]string{"target"}, nil, args), round([]string{"target"}, nil, args)},
			Params{Arguments: args, InputResponses: answers("target")}, 0},
		{"neither answers nor a state: a new call",
			[]Round{round([]string{"target"}, nil, args)},
			Params{Arguments: args}, -1},
		{"a retry after the URL error continues its call",
			[]Round{round([]string{"target"}, nil, other), {Method: "tools/call", Name: "deploy", Args: args, URL: true}},
			Params{Arguments: args}, 1},
		{"another tool is another call",
			[]Round{{Method: "tools/call", Name: "build", Args: args, Keys: []string{"target"}, State: str("first")}},
			Params{Arguments: args, InputResponses: answers("target"), RequestState: str("first")}, -1},
	} {
		var rs openRounds[int]
		for i, r := range tc.open {
			rs.Wait(i, r)
		}
		got, ok := rs.Continue("tools/call", "deploy", "", tc.p)
		if !ok {
			got = -1
		}
		if got != tc.want {
			t.Errorf("%s: continued %d, want %d", tc.name, got, tc.want)
		}
		if ok {
			if again, ok := rs.Continue("tools/call", "deploy", "", tc.p); ok && again == got {
				t.Errorf("%s: %d continued twice", tc.name, got)
			}
		}
	}
	for s, want := range map[string]bool{StateNote("abc"): true, "[requestState: 3 bytes]": true, "[requestState: 03 bytes]": false, "[requestState: x bytes]": false, "abc": false} {
		if isStateNote(s) != want {
			t.Errorf("isStateNote(%q) = %v", s, !want)
		}
	}
}
