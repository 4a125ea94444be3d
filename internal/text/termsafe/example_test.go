package termsafe_test

import (
	"fmt"
	"os"

	"github.com/askback/askback/internal/text/termsafe"
)

func ExampleLine() {
	// A title that would clear the screen and reverse what follows.
	fmt.Println(termsafe.Line("Deploy\x1b[2J now?\u202e\nreally"))
	// Output: Deploy\x1b[2J now?\u202e really
}

func ExampleJSON() {
	fmt.Println(string(termsafe.JSON([]byte("{\"title\":\"a\u202eb\u009b\"}"))))
	// Output: {"title":"a\u202eb\u009b"}
}

func ExampleWriter() {
	w := termsafe.NewWriter(os.Stdout)
	fmt.Fprintln(w, "ok\x1b]52;c;Y2xpcGJvYXJk\x07")
	w.Flush()
	// Output: ok\x1b]52;c;Y2xpcGJvYXJk\x07
}
