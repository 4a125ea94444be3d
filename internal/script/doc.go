// Package script implements the .mcp test-script language of mcp-tester: a
// parser that turns a script into steps (reporting syntax errors as
// FILE:LINE:COL before anything runs), a runner that executes the steps
// against a server through the small [Conn] interface, and writers for the
// text, JSON and JUnit XML reports.
//
// Every command line of a script is one step. The language reference, with
// examples, exit codes and report formats, is docs/scripts.md.
package script
