package profile_test

import (
	"fmt"

	"github.com/askback/askback/internal/client/profile"
)

func ExampleExpand() {
	lookup := func(name string) (string, bool) {
		if name == "TOKEN" {
			return "t0k3n", true
		}
		return "", false
	}
	v, err := profile.Expand("Bearer ${TOKEN}", lookup)
	fmt.Println(v, err)
	_, err = profile.Expand("Bearer ${NOPE}", lookup)
	fmt.Println(err)
	// Output:
	// Bearer t0k3n <nil>
	// the environment variable NOPE is not set
}
