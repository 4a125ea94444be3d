package lazyre_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/askback/askback/internal/text/lazyre"
)

func Example() {
	word := lazyre.New(`\b(deploy|delete)\b`)
	fmt.Println(word.MatchString("deploy to production"))
	fmt.Println(word.FindAllString("delete, then deploy", -1))
	// Output:
	// true
	// [delete deploy]
}

// An expression is compiled once, whichever goroutines use it first.
func TestConcurrentFirstUse(t *testing.T) {
	re := lazyre.New(`^[a-z]+$`)
	var wg sync.WaitGroup
	got := make([]bool, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = re.MatchString("abc")
		}()
	}
	wg.Wait()
	for i, ok := range got {
		if !ok {
			t.Errorf("goroutine %d: no match", i)
		}
	}
	first := re.Get()
	if again := re.Get(); again != first {
		t.Error("compiled twice")
	}
}

// A bad expression costs nothing until it is used, and then panics as
// regexp.MustCompile does, naming the expression.
func TestBadExpressionPanicsOnUse(t *testing.T) {
	re := lazyre.New(`(`)
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "(") {
			t.Errorf("recovered %v", r)
		}
	}()
	re.MatchString("x")
	t.Error("no panic")
}
