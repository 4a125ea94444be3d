//lint:file-ignore SA1019 sampling and roots are deprecated as of 2026-07-28 but kept working until at least 2027-07-28; scripts still answer them.

package script

import (
	"context"
	"fmt"

	"github.com/askback/askback/internal/client/answer"
)

// SampleConn is a Conn that can answer a server's requests for a model
// reply (sampling/createMessage) with the replies queued by
// sample_response: the runner hands them over before each asking command
// and reads back those left unused.
type SampleConn interface {
	Conn
	SetSamples(*answer.Samples)
}

// pendingSample is a reply queued by a sample_response step, settled by the
// next asking command.
type pendingSample struct {
	sample answer.Sample
	step   *StepResult
}

func checkSampleResponse(p *parser, c *command, outers []*cmd) {
	s, ok := p.literalArg(c, 0, "the reply")
	if !ok {
		return
	}
	sm, err := answer.ParseSample(s)
	if err != nil {
		p.errorf(c.args[0].col, "%v", err)
		return
	}
	c.sample = &sm
	p.sampling = true
}

func checkRoots(p *parser, c *command, outers []*cmd) {
	for i := range c.args {
		s, ok := p.literalArg(c, i, "a root")
		if !ok {
			return
		}
		root, err := answer.ParseRoot(s)
		if err != nil {
			p.errorf(c.args[i].col, "%v", err)
			return
		}
		if len(p.roots) >= maxScriptRoots {
			p.errorf(c.args[i].col, "more than %d roots", maxScriptRoots)
			return
		}
		p.roots = append(p.roots, root)
	}
}

// maxScriptRoots bounds the roots of one script.
const maxScriptRoots = 1000

// queueSample runs sample_response: the reply waits for the next asking
// command, which settles the step.
func queueSample(r *runner, _ context.Context, c *command, res *StepResult) *failure {
	r.samples = append(r.samples, pendingSample{sample: *c.sample, step: res})
	return nil
}

// declaresRoots runs roots: the roots are declared when the script's
// session opens (Script.Roots), so the step has nothing left to do.
func declaresRoots(*runner, context.Context, *command, *StepResult) *failure { return nil }

// handSamples gives the queued replies to the connection for the next
// asking command; nil when none are queued.
func (r *runner) handSamples() *answer.Samples {
	if len(r.samples) == 0 {
		return nil
	}
	list := make([]answer.Sample, len(r.samples))
	for i, p := range r.samples {
		list[i] = p.sample
	}
	q := answer.NewSamples(list...)
	if sc, ok := r.conn.(SampleConn); ok {
		sc.SetSamples(q)
	}
	return q
}

// settleSamples decides the sample_response steps after command c: the
// replies are used in order, and one the server did not ask for fails its
// step.
func (r *runner) settleSamples(c *command, q *answer.Samples) {
	pending := r.samples
	r.samples = nil
	if q == nil {
		return
	}
	if sc, ok := r.conn.(SampleConn); ok {
		sc.SetSamples(nil)
	} else {
		for _, p := range pending {
			p.step.Passed = false
			p.step.Message = "the reply was never used: this connection cannot answer sampling"
		}
		return
	}
	used := len(pending) - len(q.Unused())
	for i, p := range pending {
		if i < used {
			p.step.Passed = true
			continue
		}
		p.step.Passed = false
		p.step.Message = fmt.Sprintf("the reply was never used: the server asked for %d model reply(s) during %s (line %d)", used, c.def.name, c.line)
	}
}
