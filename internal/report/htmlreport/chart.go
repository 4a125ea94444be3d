package htmlreport

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The geometry of every chart, in SVG user units: a viewBox of chartWidth
// × chartHeight with the plot inside the margins, the axes' labels and
// titles outside it.
const (
	chartWidth   = 760
	chartHeight  = 280
	marginLeft   = 72
	marginRight  = 16
	marginTop    = 16
	marginBottom = 56
	plotWidth    = chartWidth - marginLeft - marginRight
	plotHeight   = chartHeight - marginTop - marginBottom
)

// chart is an SVG chart as the template draws it: axes with ticks and
// titles, lines of points (each point with its figures as a tooltip), bars
// (each with its figures as a tooltip, and a label above when it fits).
type chart struct {
	ID     string // the id of the figure, for links and tests
	Title  string // the figure's caption
	XTitle string // what the x axis measures, with its unit
	YTitle string
	XTicks []tick
	YTicks []tick
	Lines  []line
	Bars   []bar
	Legend []legendItem
	// Width and Height are the viewBox; Left, Top, Right and Bottom the
	// plot's edges within it, MidX and MidY its middle.
	Width, Height, Left, Top, Right, Bottom, MidX, MidY int
}

// tick is one labelled mark of an axis, at Pos along it (x for the x axis,
// y for the y axis).
type tick struct {
	Pos   string
	Label string
}

// line is one series of a line chart.
type line struct {
	Name   string
	Class  string // the CSS class that colours it
	Points string // the polyline's points: "x,y x,y …"
	Dots   []dot
}

// dot is one point of a line, with what it stands for.
type dot struct {
	X, Y  string
	Title string // the point's figures, shown on hover
}

// bar is one bar of a bar chart.
type bar struct {
	X, Y, W, H string
	Class      string
	Title      string // the bar's figures, shown on hover
	Label      string // the figure shown above the bar; empty when it does not fit
	LabelX     string
	LabelY     string
}

type legendItem struct {
	Name, Class string
}

func newChart(id, title, xTitle, yTitle string) *chart {
	return &chart{ID: id, Title: title, XTitle: xTitle, YTitle: yTitle,
		Width: chartWidth, Height: chartHeight,
		Left: marginLeft, Top: marginTop, Right: chartWidth - marginRight, Bottom: chartHeight - marginBottom,
		MidX: marginLeft + plotWidth/2, MidY: marginTop + plotHeight/2}
}

// coord writes a coordinate with one decimal: the same figures give the
// same page.
func coord(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// niceStep is a step of 1, 2 or 5 × 10^k that cuts span into at most
// about n parts.
func niceStep(span float64, n int) float64 {
	if span <= 0 || math.IsInf(span, 0) || math.IsNaN(span) {
		return 1
	}
	raw := span / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			return m * mag
		}
	}
	return 10 * mag
}

// axis is a linear scale from 0 to a nice maximum at or above max, with
// its ticks.
type axis struct {
	max, step float64
}

func newAxis(max float64) axis {
	if max <= 0 {
		max = 1
	}
	step := niceStep(max, 5)
	top := math.Ceil(max/step-1e-9) * step
	return axis{max: top, step: step}
}

// values are the ticks' values, from 0 to the top.
func (a axis) values() []float64 {
	var out []float64
	for i := 0; ; i++ {
		v := float64(i) * a.step
		if v > a.max+a.step/1e6 {
			return out
		}
		out = append(out, v)
	}
}

// decimals is how many decimals a label of this axis needs to tell its
// ticks apart.
func (a axis) decimals() int {
	return max(0, int(-math.Floor(math.Log10(a.step)+1e-9)))
}

func (a axis) label(v float64) string {
	return strconv.FormatFloat(v, 'f', a.decimals(), 64)
}

// x and y place a value on the plot.
func (c *chart) x(a axis, v float64) float64 {
	return float64(c.Left) + v/a.max*float64(c.Right-c.Left)
}

func (c *chart) y(a axis, v float64) float64 {
	return float64(c.Bottom) - v/a.max*float64(c.Bottom-c.Top)
}

func (c *chart) xTicks(a axis) {
	for _, v := range a.values() {
		c.XTicks = append(c.XTicks, tick{Pos: coord(c.x(a, v)), Label: a.label(v)})
	}
}

func (c *chart) yTicks(a axis) {
	for _, v := range a.values() {
		c.YTicks = append(c.YTicks, tick{Pos: coord(c.y(a, v)), Label: a.label(v)})
	}
}

// point is one value of a series at x, with its tooltip.
type point struct {
	X, Y  float64
	Title string
}

// series is a line chart's series before it is placed.
type series struct {
	Name, Class string
	Points      []point
}

// lineChart places series on axes from 0 to their largest x and y.
func lineChart(id, title, xTitle, yTitle string, xMax float64, ss []series) *chart {
	c := newChart(id, title, xTitle, yTitle)
	yMax := 0.0
	for _, s := range ss {
		for _, p := range s.Points {
			yMax = math.Max(yMax, p.Y)
		}
	}
	xa, ya := newAxis(xMax), newAxis(yMax)
	c.xTicks(xa)
	c.yTicks(ya)
	for _, s := range ss {
		l := line{Name: s.Name, Class: s.Class}
		var pts []string
		for _, p := range s.Points {
			x, y := coord(c.x(xa, p.X)), coord(c.y(ya, p.Y))
			pts = append(pts, x+","+y)
			l.Dots = append(l.Dots, dot{X: x, Y: y, Title: p.Title})
		}
		l.Points = strings.Join(pts, " ")
		c.Lines = append(c.Lines, l)
		if len(ss) > 1 {
			c.Legend = append(c.Legend, legendItem{Name: s.Name, Class: s.Class})
		}
	}
	return c
}

// column is one bar of a bar chart before it is placed: its height, the
// label of its left edge on the x axis, its tooltip and the figure above
// it.
type column struct {
	Value       float64
	Edge, Title string
	Label       string
}

// maxEdgeLabels bounds the labels of a bar chart's x axis; the others are
// left out, evenly.
const maxEdgeLabels = 12

// barChart places columns side by side across the plot, their left edges
// labelled on the x axis (and the right edge of the last, lastEdge).
func barChart(id, title, xTitle, yTitle string, cols []column, lastEdge string) *chart {
	c := newChart(id, title, xTitle, yTitle)
	yMax := 0.0
	for _, col := range cols {
		yMax = math.Max(yMax, col.Value)
	}
	ya := newAxis(yMax)
	c.yTicks(ya)
	if len(cols) == 0 {
		return c
	}
	w := float64(c.Right-c.Left) / float64(len(cols))
	every := (len(cols) + maxEdgeLabels) / (maxEdgeLabels + 1)
	every = max(every, 1)
	for i, col := range cols {
		x := float64(c.Left) + float64(i)*w
		y := c.y(ya, col.Value)
		b := bar{X: coord(x + 1), Y: coord(y), W: coord(math.Max(w-2, 1)), H: coord(float64(c.Bottom) - y), Class: "bar", Title: col.Title}
		// A figure above its bar only where it fits: 7 units a character.
		if col.Label != "" && float64(len(col.Label))*7 <= w {
			b.Label, b.LabelX, b.LabelY = col.Label, coord(x+w/2), coord(y-4)
		}
		c.Bars = append(c.Bars, b)
		if i%every == 0 {
			c.XTicks = append(c.XTicks, tick{Pos: coord(x), Label: col.Edge})
		}
	}
	if len(cols)%every == 0 && lastEdge != "" {
		c.XTicks = append(c.XTicks, tick{Pos: coord(float64(c.Right)), Label: lastEdge})
	}
	return c
}

// percent writes a share (0.25) as a percentage with one decimal.
func percent(share float64) string { return fmt.Sprintf("%.1f%%", 100*share) }
