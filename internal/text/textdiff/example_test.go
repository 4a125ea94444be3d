package textdiff_test

import (
	"fmt"

	"github.com/askback/askback/internal/text/textdiff"
)

func ExampleUnified() {
	fmt.Print(textdiff.Unified("expected", "actual", "deploy\nto staging\n", "deploy\nto production\n", 3))
	// Output:
	// --- expected
	// +++ actual
	// @@ -1,2 +1,2 @@
	//  deploy
	// -to staging
	// +to production
}
