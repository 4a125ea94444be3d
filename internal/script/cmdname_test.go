package script

import (
	"slices"
	"testing"

	"github.com/askback/askback/internal/script/cmdname"
)

// The names that script writers (internal/script/fromcall) use are the command
// table's, every one, in its order.
func TestCommandNamesAreTheTable(t *testing.T) {
	var table []string
	for _, c := range commandList {
		table = append(table, c.name)
	}
	if !slices.Equal(table, cmdname.All()) {
		t.Errorf("the command table has\n%v\ncmdname.All has\n%v", table, cmdname.All())
	}
}
