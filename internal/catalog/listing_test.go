package catalog

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A list that fails is noted and the others are still listed; Fetch, which
// needs every list, fails.
func TestListNotesAFailedList(t *testing.T) {
	l := sampleLister()
	l.fail = errors.New("boom")
	got, err := List(context.Background(), l, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.ListErrors["prompts/list"] != "boom" || got.Failed == nil || len(got.Tools) != 2 || len(got.Resources) != 2 || len(got.Templates) != 1 {
		t.Fatalf("listing = %+v", got)
	}
}

// Templates came after resources in the protocol: a server that declares
// resources but does not know resources/templates/list has none, and that
// is no failure, for every user of the listing (catalog save included);
// another failure of the templates list is one.
func TestListTemplatesMethodNotFound(t *testing.T) {
	l := sampleLister()
	l.templatesFail = &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found"}
	got, err := List(context.Background(), l, Options{})
	if err != nil || got.Failed != nil || len(got.ListErrors) != 0 || len(got.Templates) != 0 {
		t.Fatalf("listing = %+v, %v", got, err)
	}
	if _, err := Fetch(context.Background(), l); err != nil {
		t.Fatalf("catalog of a server without templates/list: %v", err)
	}
	l.templatesFail = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "broken"}
	if got, err := List(context.Background(), l, Options{}); err != nil || got.ListErrors["resources/templates/list"] == "" {
		t.Fatalf("listing = %+v, %v", got, err)
	}
}

// What a server can fill is bounded: items per list and bytes in all,
// with an error that says which list passed which bound.
func TestListBounds(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{MaxItems: 1}, "tools/list: more than 1 items"},
		{Options{MaxBytes: 100}, "the lists pass 100 bytes"},
	} {
		_, err := List(context.Background(), sampleLister(), tc.o)
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.o, err, tc.want)
		}
		if _, err := List(context.Background(), sampleLister(), Options{Lists: Prompts, MaxItems: 1}); err != nil {
			t.Errorf("one prompt within a bound of one: %v", err)
		}
	}
}

// Only the lists asked for are listed.
func TestListOnly(t *testing.T) {
	got, err := List(context.Background(), sampleLister(), Options{Lists: Prompts})
	if err != nil || len(got.Prompts) != 1 || got.Tools != nil || got.Resources != nil || got.Templates != nil {
		t.Fatalf("listing = %+v, %v", got, err)
	}
}
