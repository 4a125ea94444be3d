package optname_test

import (
	"fmt"
	"testing"

	"github.com/askback/askback/internal/text/optname"
)

type option int

const (
	optionTimeout option = iota + 1
	optionRetries
)

func (o option) String() string {
	switch o {
	case optionTimeout:
		return "Options.Timeout"
	case optionRetries:
		return "Options.Retries"
	}
	return fmt.Sprintf("option(%d)", int(o))
}

func TestWord(t *testing.T) {
	var none optname.Namer[option]
	flags := optname.Namer[option](func(o option) string {
		if o == optionTimeout {
			return "--timeout"
		}
		return "" // no flag: the package's own name
	})
	for _, c := range []struct {
		n    optname.Namer[option]
		o    option
		want string
	}{
		{none, optionTimeout, "Options.Timeout"},
		{flags, optionTimeout, "--timeout"},
		{flags, optionRetries, "Options.Retries"},
	} {
		if got := c.n.Word(c.o); got != c.want {
			t.Errorf("Word(%v) = %q, want %q", c.o, got, c.want)
		}
	}
}
