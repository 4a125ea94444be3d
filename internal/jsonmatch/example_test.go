package jsonmatch_test

import (
	"fmt"

	"github.com/askback/askback/internal/jsonmatch"
)

// What a server answered becomes what a script expects of it; the next run
// answers with another task id and time, and still matches; a changed text
// does not.
func Example() {
	first := jsonmatch.MustDecode(`{"_meta":{"x":1},"content":[{"type":"text","text":"Task NXX66JRSHRRKGDIJDMZK35AY7U queued at 2026-12-03T10:00:00Z"}]}`)
	want := jsonmatch.Expect(first, jsonmatch.ExpectOptions{})
	fmt.Println(jsonmatch.Compact(want))

	next := jsonmatch.MustDecode(`{"content":[{"type":"text","text":"Task Q7ZK2M4TNW5X6Y3PRVBS9D8HLA queued at 2026-12-04T08:30:00.5Z"}]}`)
	fmt.Println(jsonmatch.Matches(want, next))

	changed := jsonmatch.MustDecode(`{"content":[{"type":"text","text":"Task Q7ZK2M4TNW5X6Y3PRVBS9D8HLA refused"}]}`)
	for _, d := range jsonmatch.Match(want, changed) {
		fmt.Println(d)
	}
	// Output:
	// {"content":[{"type":"text","text":"Task {{id}} queued at {{timestamp}}"}]}
	// true
	// $.content[0].text: expected "Task {{id}} queued at {{timestamp}}", got "Task Q7ZK2M4TNW5X6Y3PRVBS9D8HLA refused"
}
