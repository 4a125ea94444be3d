package catalogdiff

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/askback/askback/internal/catalog"
)

// scaleCase builds an old and a new catalog of size n where every item
// changed: the worst case for pairing items each with each.
type scaleCase struct {
	name string
	make func(n int) (old, new *catalog.Catalog)
}

func oneTool(schema map[string]any) *catalog.Catalog {
	return &catalog.Catalog{Tools: []catalog.Tool{{Name: "t", InputSchema: schema}}}
}

var scaleCases = []scaleCase{
	{"enum values", func(n int) (*catalog.Catalog, *catalog.Catalog) {
		side := func(prefix string) *catalog.Catalog {
			var enum []any
			for i := range n {
				enum = append(enum, fmt.Sprintf("%s%d", prefix, i), json.Number(fmt.Sprintf("%d.5", i)))
			}
			return oneTool(map[string]any{"type": "object", "properties": map[string]any{"e": map[string]any{"enum": enum}}})
		}
		return side("a"), side("b")
	}},
	{"properties and required", func(n int) (*catalog.Catalog, *catalog.Catalog) {
		side := func(prefix string) *catalog.Catalog {
			props := map[string]any{}
			var req []any
			for i := range n {
				name := fmt.Sprintf("%s%d", prefix, i)
				props[name] = map[string]any{"type": "string", "description": name}
				req = append(req, name)
			}
			return oneTool(map[string]any{"type": "object", "properties": props, "required": req})
		}
		return side("a"), side("b")
	}},
	{"tools, prompts and resources", func(n int) (*catalog.Catalog, *catalog.Catalog) {
		side := func(prefix string) *catalog.Catalog {
			c := &catalog.Catalog{}
			for i := range n {
				name := fmt.Sprintf("%s%d", prefix, i)
				c.Tools = append(c.Tools, catalog.Tool{Name: name, InputSchema: map[string]any{"description": name}})
				c.Prompts = append(c.Prompts, catalog.Prompt{Name: name, Arguments: []catalog.Argument{{Name: name}}})
				c.Resources = append(c.Resources, catalog.Resource{URI: "file:///" + name, Name: name})
			}
			return c
		}
		return side("a"), side("b")
	}},
}

// TestCompareScalesLinearly: comparing catalogs twice as large takes about
// twice the steps (comparisons of one value with another), never four
// times: a hostile catalog cannot stall a CI job by its size.
func TestCompareScalesLinearly(t *testing.T) {
	for _, sc := range scaleCases {
		t.Run(sc.name, func(t *testing.T) {
			steps := func(n int) int {
				old, new := sc.make(n)
				d := compare(old, new)
				if len(d.changes) == 0 {
					t.Fatalf("n=%d: no changes found", n)
				}
				return d.steps
			}
			small, large := steps(500), steps(2000)
			if small == 0 {
				t.Fatal("no steps counted")
			}
			if ratio := float64(large) / float64(small); ratio > 5 {
				t.Errorf("4× the items took %.1f× the steps (%d → %d): not linear", ratio, small, large)
			}
		})
	}
}

// BenchmarkCompareScale compares catalogs of 10,000 changed items and of
// 2,500, taking turns, and reports how many times longer the larger took
// (x-baseline): about 4 when the comparison is linear, 16 when quadratic.
func BenchmarkCompareScale(b *testing.B) {
	for _, sc := range scaleCases {
		b.Run(sc.name, func(b *testing.B) {
			smallOld, smallNew := sc.make(2500)
			largeOld, largeNew := sc.make(10000)
			var ratios []float64
			for b.Loop() {
				t0 := time.Now()
				Compare(smallOld, smallNew)
				t1 := time.Now()
				Compare(largeOld, largeNew)
				ratios = append(ratios, float64(time.Since(t1))/float64(t1.Sub(t0)))
			}
			slices.Sort(ratios)
			b.ReportMetric(ratios[len(ratios)/2], "x-baseline")
			b.ReportMetric(ratios[0], "x-baseline-min")
			b.ReportMetric(ratios[len(ratios)-1], "x-baseline-max")
		})
	}
}

// TestDeepCapabilitiesAreBounded: capabilities nested thousands deep are
// followed no deeper than schemas are (maxSchemaDepth), and compared whole
// below: not once per level, each level comparing all below it again.
func TestDeepCapabilitiesAreBounded(t *testing.T) {
	nest := func(leaf any) map[string]any {
		v := map[string]any{"x": leaf}
		for range 5000 {
			v = map[string]any{"x": v}
		}
		return v
	}
	old, new := &catalog.Catalog{Capabilities: nest(true)}, &catalog.Catalog{Capabilities: nest(false)}
	rep := Compare(old, new)
	if len(rep.Changes) != 1 {
		t.Fatalf("want one change, got %d", len(rep.Changes))
	}
	if n := len(rep.Changes[0].Path.Segments()); n > maxSchemaDepth+1 {
		t.Errorf("the change is placed %d levels deep, past the bound of %d", n, maxSchemaDepth)
	}
}
