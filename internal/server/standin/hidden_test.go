package standin

import "testing"

// A hidden argument (a credential the proxy hid) matches any value of
// that argument, at any depth of the arguments, and nothing else does.
func TestHiddenArgumentsMatchAnyValue(t *testing.T) {
	recorded, err := matchKey("tools/call", []byte(`{"name":"deploy","arguments":{"service":"auth","api_key":"[redacted]","n":{"list":["[redacted]",1]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !hidesArguments(recorded) {
		t.Fatalf("%s hides nothing", recorded)
	}
	for params, want := range map[string]bool{
		`{"name":"deploy","arguments":{"service":"auth","api_key":"sk-1","n":{"list":["x",1.0]}}}`:              true,
		`{"name":"deploy","arguments":{"service":"auth","api_key":{"a":1},"n":{"list":[2,1]}}}`:                 true,
		`{"name":"deploy","arguments":{"service":"api","api_key":"sk-1","n":{"list":["x",1]}}}`:                 false,
		`{"name":"deploy","arguments":{"service":"auth","n":{"list":["x",1]}}}`:                                 false,
		`{"name":"deploy","arguments":{"service":"auth","api_key":"sk-1","n":{"list":["x",2]}}}`:                false,
		`{"name":"deploy","arguments":{"service":"auth","api_key":"sk-1","n":{"list":["x",1]},"more":true}}`:    false,
		`{"name":"other","arguments":{"service":"auth","api_key":"sk-1","n":{"list":["x",1]}}}`:                 false,
		`{"name":"deploy","arguments":{"service":"auth","api_key":"[redacted]","n":{"list":["[redacted]",1]}}}`: true,
	} {
		got, err := matchKey("tools/call", []byte(params))
		if err != nil {
			t.Fatal(err)
		}
		if matchesHidden(recorded, got) != want {
			t.Errorf("%s matches %s: %v, want %v", got, recorded, !want, want)
		}
	}
	// Hidden is a wildcard in the arguments only: a resource named so is
	// that resource.
	rec, _ := matchKey("resources/read", []byte(`{"uri":"[redacted]"}`))
	got, _ := matchKey("resources/read", []byte(`{"uri":"file:///x"}`))
	if matchesHidden(rec, got) {
		t.Error("a hidden value outside the arguments matched")
	}
}
