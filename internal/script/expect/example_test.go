package expect_test

import (
	"fmt"

	"github.com/askback/askback/internal/script/expect"
)

// What a server answered becomes what a script expects of it; the next run
// answers with another task id and time, and still matches; a changed text
// does not.
func Example() {
	first := expect.MustDecode(`{"_meta":{"x":1},"content":[{"type":"text","text":"Task NXX66JRSHRRKGDIJDMZK35AY7U queued at 2026-12-03T10:00:00Z"}]}`)
	want := expect.Expect(first, expect.ExpectOptions{})
	fmt.Println(expect.Compact(want))

	next := expect.MustDecode(`{"content":[{"type":"text","text":"Task Q7ZK2M4TNW5X6Y3PRVBS9D8HLA queued at 2026-12-04T08:30:00.5Z"}]}`)
	fmt.Println(expect.Matches(want, next))

	changed := expect.MustDecode(`{"content":[{"type":"text","text":"Task Q7ZK2M4TNW5X6Y3PRVBS9D8HLA refused"}]}`)
	for _, d := range expect.Match(want, changed) {
		fmt.Println(d)
	}
	// Output:
	// {"content":[{"type":"text","text":"Task {{id}} queued at {{timestamp}}"}]}
	// true
	// $.content[0].text: expected "Task {{id}} queued at {{timestamp}}", got "Task Q7ZK2M4TNW5X6Y3PRVBS9D8HLA refused"
}
