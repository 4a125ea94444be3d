// Package interactive asks a person at the terminal the questions a server
// sends: a form built from the requested schema (charm.land/huh), or, for a
// URL question, the full link with its host highlighted, warnings about
// links that look deceptive, and a yes/no before anything is opened.
//
// [Answerer] implements answer.Answerer. It returns answer.ErrNoAnswer when
// no person can be asked, so that the session declines as it would without
// it. Defaults and validation of the final answer stay in answer.Finish;
// this package only checks each field as it is typed, so a person sees a
// mistake where it is made.
//
// The form is described first ([Describe] turns a parsed form schema into
// [Field] descriptions) and rendered second, so the mapping is testable
// without a terminal. In accessible mode (for screen readers) every field
// is a plain line prompt; it also serves when input is not a terminal but
// asking was requested.
package interactive
