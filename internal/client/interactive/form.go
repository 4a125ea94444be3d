package interactive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/huh/v2"
	"charm.land/lipgloss/v2"
	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/charmbracelet/colorprofile"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The three answers, as the action select offers them.
var actions = []Option{
	{Label: "Submit", Value: "accept"},
	{Label: "Decline", Value: "decline"},
	{Label: "Cancel", Value: "cancel"},
}

// styles are the few styles of the text printed around a form.
type styles struct {
	heading, host, warn, faint lipgloss.Style
}

func (a *Answerer) styles() styles {
	if a.opts.Accessible {
		// Plain text: the writer drops every escape anyway.
		return styles{}
	}
	s := styles{
		heading: lipgloss.NewStyle().Bold(true),
		host:    lipgloss.NewStyle().Bold(true).Underline(true),
		warn:    lipgloss.NewStyle().Bold(true),
		faint:   lipgloss.NewStyle().Faint(true),
	}
	if !a.opts.NoColor {
		s.heading = s.heading.Foreground(lipgloss.Color("12"))
		s.host = s.host.Foreground(lipgloss.Color("0")).Background(lipgloss.Color("11"))
		s.warn = s.warn.Foreground(lipgloss.Color("9"))
	}
	return s
}

// out is where text around the forms goes, with colors reduced to what the
// person's terminal and settings allow.
func (a *Answerer) out() io.Writer {
	var fw io.Writer = a.shown
	if a.opts.Hide != nil {
		fw = hidingWriter{w: fw, hide: a.opts.Hide}
	}
	w := &colorprofile.Writer{Forward: fw, Profile: colorprofile.TrueColor}
	switch {
	case a.opts.Accessible:
		w.Profile = colorprofile.NoTTY
	case a.opts.NoColor:
		w.Profile = colorprofile.Ascii
	}
	return w
}

func (a *Answerer) keymap() *huh.KeyMap {
	km := huh.NewDefaultKeyMap()
	quit := []string{"esc", "ctrl+c"}
	if a.opts.Interrupt != nil {
		quit = quit[:1] // Ctrl-C interrupts (see run)
	}
	km.Quit = key.NewBinding(key.WithKeys(quit...), key.WithHelp("esc", "cancel"))
	// Esc cancels the question; filtering would give it a second meaning.
	km.Select.Filter.SetEnabled(false)
	km.MultiSelect.Filter.SetEnabled(false)
	return km
}

// run shows a form and reports whether the person aborted it (Esc).
func (a *Answerer) run(ctx context.Context, groups ...*huh.Group) (aborted bool, err error) {
	f := huh.NewForm(groups...).WithKeyMap(a.keymap()).WithShowHelp(true)
	if a.opts.NoColor {
		f = f.WithTheme(huh.ThemeFunc(plainTheme))
	}
	if a.opts.Accessible {
		// A prompt left behind (an interrupt ended its question) shows
		// nothing more: what it would write after is for no question.
		out := &shutter{w: a.out()}
		defer out.shut()
		f = f.WithAccessible(true).WithInput(a.in).WithOutput(out)
	} else {
		in := a.in
		if a.tty != nil {
			fin, release := a.tty.open()
			defer release()
			in = fin
		}
		opts := []tea.ProgramOption{tea.WithInput(in), tea.WithOutput(a.opts.Out)}
		if a.opts.Interrupt != nil {
			// Ctrl-C has one meaning, at a form as at a line prompt: it
			// interrupts the command (whose context then ends this form);
			// no answer is sent for it. Esc cancels the question.
			opts = append(opts, tea.WithFilter(func(_ tea.Model, msg tea.Msg) tea.Msg {
				if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == "ctrl+c" {
					a.opts.Interrupt()
					return nil
				}
				return msg
			}))
		}
		if a.opts.NoColor {
			opts = append(opts, tea.WithColorProfile(colorprofile.Ascii))
		}
		f = f.WithProgramOptions(opts...)
	}
	if a.opts.Accessible {
		// The forms library's line prompts ignore the context while they
		// read: run them aside, so that an interrupt or a deadline still
		// ends the question. The abandoned prompt may take one more line.
		// The end of the input is no answer, whatever the prompt makes of
		// it: the library's prompts take the last line typed for the
		// answer (a number prompt then indexes its options with it, out of
		// range) or ask again for ever; the input, once ended, stops them
		// (lineReader) and the form is not answered.
		done := make(chan error, 1)
		go func() {
			defer func() {
				if r := recover(); r != nil {
					if a.atEOF() {
						done <- errInputEnded
						return
					}
					done <- fmt.Errorf("the line prompt failed: %v", r)
				}
			}()
			done <- f.RunWithContext(ctx)
		}()
		select {
		case err = <-done:
		case <-ctx.Done():
		}
	} else {
		err = f.RunWithContext(ctx)
	}
	switch {
	case ctx.Err() != nil:
		// Interrupted (or out of time) while the person was asked: that is
		// what ended the question, whatever the prompt met meanwhile (the
		// end of an input that ended with the interrupt, the forms
		// library's own reading of the signal as Esc).
		a.interrupted()
		return false, fmt.Errorf("ask at the terminal: %w", context.Cause(ctx))
	case errors.Is(err, errInputEnded), a.atEOF():
		a.inputEnded()
		return false, answer.ErrNoAnswer
	case errors.Is(err, huh.ErrUserAborted):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("ask at the terminal: %w", err)
	}
	return false, nil
}

// plainTheme is the default theme for terminals without colors: the chosen
// button of a yes/no question is bracketed and reversed, since its color
// would have been the only sign of it.
func plainTheme(isDark bool) *huh.Styles {
	t := huh.ThemeCharm(isDark)
	button := lipgloss.NewStyle().Padding(0, 1).MarginRight(1)
	for _, fs := range []*huh.FieldStyles{&t.Focused, &t.Blurred} {
		fs.FocusedButton = button.Reverse(true).Bold(true).Transform(func(s string) string { return "[" + s + "]" })
		fs.BlurredButton = button.Transform(func(s string) string { return " " + s + " " })
	}
	return t
}

// askForm shows a form question until the person submits a valid answer,
// declines or cancels.
func (a *Answerer) askForm(ctx context.Context, q *answer.Question) (*mcp.ElicitResult, error) {
	st := a.styles()
	w := a.out()
	fmt.Fprintln(w, st.heading.Render(asker(q)+" asks:"))
	fmt.Fprintln(w, indent(termsafe.Block(q.Params.Message), "  "))
	fmt.Fprintln(w, st.faint.Render("  Fill in the form, then choose Submit, Decline or Cancel (Esc cancels)."))
	fields := Describe(q.Form)
	if a.opts.Hide != nil {
		for _, f := range fields {
			f.hide(a.opts.Hide)
		}
	}
	for _, f := range fields {
		if f.Warning != "" {
			fmt.Fprintln(w, st.warn.Render("  Warning: "+f.Warning))
		}
	}
	values := make([]Value, len(fields))
	for i, f := range fields {
		values[i] = f.Start
		values[i].Set = append([]string(nil), f.Start.Set...)
	}
	for range maxAttempts {
		action := "accept"
		var hf []huh.Field
		for i, f := range fields {
			hf = append(hf, widget(f, &values[i], a.opts.Accessible))
		}
		hf = append(hf, selectOne("Your answer", "", actions, &action))
		aborted, err := a.run(ctx, huh.NewGroup(hf...))
		if err != nil {
			return nil, err
		}
		if aborted || action == "cancel" {
			return result("cancel", nil), nil
		}
		if action == "decline" {
			return result("decline", nil), nil
		}
		content, problems := Collect(q.Form, fields, values)
		if len(problems) == 0 {
			return result("accept", content), nil
		}
		fmt.Fprintln(w, st.warn.Render("The answer cannot be sent yet:"))
		for _, p := range problems {
			fmt.Fprintln(w, "  - "+termsafe.Line(p))
		}
	}
	return nil, fmt.Errorf("the form was submitted %d times with problems; giving up", maxAttempts)
}

// widget builds the huh field for one described field, bound to v. Line
// prompts show only a title, so there the hints join it.
func widget(f *Field, v *Value, accessible bool) huh.Field {
	if accessible && f.Widget == SelectMany && f.schema != nil && f.schema.Default != nil {
		g := *f
		g.Description = joinHints([]string{f.Description, "an empty line keeps the choice ticked"})
		f = &g
	}
	if accessible && f.Description != "" {
		g := *f
		g.Title += " — " + f.Description
		f = &g
	}
	switch f.Widget {
	case YesNo:
		return huh.NewConfirm().Key(f.Name).Title(f.Title).Description(f.Description).
			Affirmative("Yes").Negative("No").Value(&v.On)
	case SelectOne:
		return selectOne(f.Title, f.Description, f.Options, &v.Choice)
	case SelectMany:
		opts := make([]huh.Option[string], len(f.Options))
		for i, o := range f.Options {
			opts[i] = huh.NewOption(o.Label, o.Value)
		}
		m := huh.NewMultiSelect[string]().Key(f.Name).Title(f.Title).Description(f.Description).
			Options(opts...).Value(&v.Set)
		if f.Limit > 0 {
			m = m.Limit(f.Limit)
		}
		if accessible && f.schema != nil && f.schema.Default != nil {
			return blankKeepsChoice{m}
		}
		return m
	}
	in := huh.NewInput().Key(f.Name).Title(f.Title).Description(f.Description).
		Placeholder(f.Placeholder).Value(&v.Text).
		Validate(func(s string) error { return f.Check(Value{Text: s}) })
	if f.CharLimit > 0 {
		in = in.CharLimit(f.CharLimit)
	}
	return in
}

// blankKeepsChoice is the line prompt of a multi-select with a default: an
// empty line ends the choice as it stands (the default, unless the person
// changed it), as it keeps the default of a single select. The forms
// library's own prompt takes only 0 for that, and calls an empty line
// invalid.
type blankKeepsChoice struct {
	*huh.MultiSelect[string]
}

// RunAccessible runs the prompt with an empty line read as 0.
func (b blankKeepsChoice) RunAccessible(w io.Writer, r io.Reader) error {
	return b.MultiSelect.RunAccessible(w, &blankAsZero{r: r, atStart: true})
}

// blankAsZero reads r, a line at a time as lineReader hands it out, with a
// line that holds nothing but spaces read as "0".
type blankAsZero struct {
	r       io.Reader
	atStart bool // the next byte begins a line
}

func (b *blankAsZero) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	chunk := p[:n]
	if b.atStart && n > 0 && len(p) >= 2 && chunk[n-1] == '\n' && strings.TrimSpace(string(chunk)) == "" {
		n = copy(p, "0\n")
	}
	if n > 0 {
		b.atStart = p[n-1] == '\n'
	}
	return n, err
}

func selectOne(title, desc string, options []Option, v *string) *huh.Select[string] {
	opts := make([]huh.Option[string], len(options))
	for i, o := range options {
		opts[i] = huh.NewOption(o.Label, o.Value)
	}
	return huh.NewSelect[string]().Title(title).Description(desc).Options(opts...).Value(v)
}

// askURL shows a URL question and opens the link only when the person says
// yes.
func (a *Answerer) askURL(ctx context.Context, q *answer.Question) (*mcp.ElicitResult, error) {
	st := a.styles()
	w := a.out()
	l := Inspect(q.Params.URL, a.opts.Server)
	fmt.Fprintln(w, st.heading.Render(asker(q)+" asks you to open a link:"))
	fmt.Fprintln(w, indent(termsafe.Block(q.Params.Message), "  "))
	fmt.Fprintln(w, "  "+l.Before+st.host.Render(l.Host)+l.After)
	if l.Host != "" {
		site := "  Site: " + st.host.Render(l.Host)
		if l.Unicode != "" {
			site += " (reads as " + l.Unicode + ")"
		}
		fmt.Fprintln(w, site)
	}
	for _, warn := range l.Warnings {
		fmt.Fprintln(w, st.warn.Render("  Warning: "+warn))
	}
	if !l.Openable {
		fmt.Fprintln(w, "  This link is not opened; the question is declined.")
		return result("decline", nil), nil
	}
	yes := false
	title := "Open this link in your browser?"
	if a.opts.Opener == nil {
		title = "Will you open this link yourself?"
	}
	aborted, err := a.run(ctx, huh.NewGroup(huh.NewConfirm().Title(title).
		Description("Yes opens it; No declines; Esc cancels.").
		Affirmative("Yes").Negative("No").Value(&yes)))
	if err != nil {
		return nil, err
	}
	if aborted {
		return result("cancel", nil), nil
	}
	if !yes {
		return result("decline", nil), nil
	}
	if a.opts.Opener != nil {
		if err := a.opts.Opener.Open(ctx, q.Params.URL); err != nil {
			fmt.Fprintln(w, st.warn.Render("  Could not open the browser: "+termsafe.Line(err.Error())))
			fmt.Fprintln(w, "  Open the link above yourself.")
		}
	}
	return result("accept", nil), nil
}

// shutter writes to w until it is shut, and drops what comes after.
type shutter struct {
	mu     sync.Mutex
	w      io.Writer
	closed bool
}

func (s *shutter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return len(p), nil
	}
	return s.w.Write(p)
}

func (s *shutter) shut() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
}

// hidingWriter writes what it is given with hide applied.
type hidingWriter struct {
	w    io.Writer
	hide func(string) string
}

func (h hidingWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(h.w, h.hide(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
