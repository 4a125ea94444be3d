package keys_test

import (
	"fmt"

	"github.com/askback/askback/keys"
)

// Rotating keys: the first key of the list signs or seals, every key of the
// list verifies or opens. Put the new key first and drop the old one once
// what it protected has expired.
func ExampleNew() {
	old, err := keys.New("2026-11")
	if err != nil {
		fmt.Println(err)
		return
	}
	next, err := keys.New("2026-12")
	if err != nil {
		fmt.Println(err)
		return
	}
	ring := []keys.Key{next, old}
	fmt.Println(keys.Check(ring), len(next.Secret))
	// Output: <nil> 32
}

// Check names what is wrong with a list of keys before a server starts
// with it.
func ExampleCheck() {
	fmt.Println(keys.Check(nil))
	fmt.Println(keys.Check([]keys.Key{{ID: "k1", Secret: []byte("too short")}}))
	fmt.Println(keys.Check([]keys.Key{{ID: "bad id!", Secret: make([]byte, 32)}}))
	// Output:
	// no keys; give at least one Key
	// key "k1": secret is 9 bytes; use at least 32 random bytes
	// key id "bad id!" must be 1 to 32 characters from [A-Za-z0-9_-]
}
