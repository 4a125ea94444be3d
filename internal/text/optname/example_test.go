package optname_test

import (
	"fmt"

	"github.com/askback/askback/internal/text/optname"
)

// Setting is one of a package's settings, named in Go API terms.
type Setting int

const SettingClientID Setting = 1

func (s Setting) String() string { return "Settings.ClientID" }

func ExampleNamer_Word() {
	var api optname.Namer[Setting] // a Go caller names nothing
	cli := optname.Namer[Setting](func(Setting) string { return "--client-id" })
	fmt.Println("a client secret needs its client id (" + api.Word(SettingClientID) + ")")
	fmt.Println("a client secret needs its client id (" + cli.Word(SettingClientID) + ")")
	// Output:
	// a client secret needs its client id (Settings.ClientID)
	// a client secret needs its client id (--client-id)
}
