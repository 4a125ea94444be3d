package scan

import (
	"regexp"
	"sync"
)

// lazyRegexp is a regular expression compiled when it is first used. The
// scan's expressions are many and large (case-insensitive alternations):
// compiled as the program starts, they cost every mcp-tester command about
// 1.5 MB and several milliseconds of CPU, scan or not.
type lazyRegexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// lazy returns expr, to be compiled when it is first used; an expr that
// does not compile panics then, as regexp.MustCompile does.
func lazy(expr string) *lazyRegexp { return &lazyRegexp{expr: expr} }

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}

func (l *lazyRegexp) MatchString(s string) bool { return l.get().MatchString(s) }

func (l *lazyRegexp) FindString(s string) string { return l.get().FindString(s) }

func (l *lazyRegexp) FindStringIndex(s string) []int { return l.get().FindStringIndex(s) }

func (l *lazyRegexp) FindAllString(s string, n int) []string { return l.get().FindAllString(s, n) }

func (l *lazyRegexp) FindAllStringIndex(s string, n int) [][]int {
	return l.get().FindAllStringIndex(s, n)
}

func (l *lazyRegexp) FindAllStringSubmatch(s string, n int) [][]string {
	return l.get().FindAllStringSubmatch(s, n)
}

func (l *lazyRegexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return l.get().FindAllStringSubmatchIndex(s, n)
}

func (l *lazyRegexp) Split(s string, n int) []string { return l.get().Split(s, n) }
