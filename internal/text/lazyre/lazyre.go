// Package lazyre holds regular expressions that are compiled when they are
// first used, not when the program starts.
//
// A package-level regexp.MustCompile runs in every mcp-tester command,
// whether the command uses the expression or not: the scan's expressions
// alone (many, large, case-insensitive alternations) cost about 1.5 MB and
// several milliseconds of CPU at each start. A [Regexp] costs nothing until
// one of its methods is called.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled on its first use. Its methods
// are those of regexp.Regexp; it is safe for concurrent use.
type Regexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// New returns expr, to be compiled when it is first used. An expr that
// does not compile panics then, as regexp.MustCompile does: give only
// expressions that tests use.
func New(expr string) *Regexp { return &Regexp{expr: expr} }

// Get returns the compiled expression.
func (l *Regexp) Get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}

// String returns the source text of the expression.
func (l *Regexp) String() string { return l.expr }

// Match is regexp.Regexp.Match.
func (l *Regexp) Match(b []byte) bool { return l.Get().Match(b) }

// MatchString is regexp.Regexp.MatchString.
func (l *Regexp) MatchString(s string) bool { return l.Get().MatchString(s) }

// FindString is regexp.Regexp.FindString.
func (l *Regexp) FindString(s string) string { return l.Get().FindString(s) }

// FindStringIndex is regexp.Regexp.FindStringIndex.
func (l *Regexp) FindStringIndex(s string) []int { return l.Get().FindStringIndex(s) }

// FindStringSubmatch is regexp.Regexp.FindStringSubmatch.
func (l *Regexp) FindStringSubmatch(s string) []string { return l.Get().FindStringSubmatch(s) }

// FindAllString is regexp.Regexp.FindAllString.
func (l *Regexp) FindAllString(s string, n int) []string { return l.Get().FindAllString(s, n) }

// FindAllStringIndex is regexp.Regexp.FindAllStringIndex.
func (l *Regexp) FindAllStringIndex(s string, n int) [][]int {
	return l.Get().FindAllStringIndex(s, n)
}

// FindAllStringSubmatch is regexp.Regexp.FindAllStringSubmatch.
func (l *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return l.Get().FindAllStringSubmatch(s, n)
}

// FindAllStringSubmatchIndex is regexp.Regexp.FindAllStringSubmatchIndex.
func (l *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return l.Get().FindAllStringSubmatchIndex(s, n)
}

// ReplaceAllStringFunc is regexp.Regexp.ReplaceAllStringFunc.
func (l *Regexp) ReplaceAllStringFunc(s string, repl func(string) string) string {
	return l.Get().ReplaceAllStringFunc(s, repl)
}

// Split is regexp.Regexp.Split.
func (l *Regexp) Split(s string, n int) []string { return l.Get().Split(s, n) }
