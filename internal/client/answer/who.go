package answer

// Who says who answers the questions of one call. Every command, script
// step and bench flow builds its answerer from it, and nothing else puts
// answerers together, so that the order is the same everywhere: the
// answers written in advance (--elicit, elicit_response), then for
// requests for a model reply the replies written in advance (a script
// step's sample_response lines, then --sample), then a person.
type Who struct {
	// Written are the answers written in advance: a Queue, or a Queue
	// wrapped (--open opens the links it accepts).
	Written Answerer
	// Samples are the model replies written in advance, asked in order
	// until one has a reply left: a script step's own, then those of the
	// whole run. Nil ones are skipped; none: no replies.
	Samples []*Samples
	// Person answers what the others leave; nil: nobody, and the session
	// declines.
	Person Answerer
	// Strict, when set, makes a question nobody answers fail instead of
	// being declined; it ends the error message, saying what to do.
	Strict string
	// Spelling names the answers written in advance that the error of
	// Strict says did not apply, each with why (see [Required]).
	Spelling Spelling
}

// Answerer returns the chain that asks each in turn.
func (w Who) Answerer() Answerer {
	chain := Chain{w.Written}
	for _, s := range w.Samples {
		if s != nil {
			chain = append(chain, s)
		}
	}
	if w.Person != nil {
		chain = append(chain, w.Person)
	}
	if w.Strict != "" {
		return Required{Answerer: chain, Hint: w.Strict, Written: w.Written, Spelling: w.Spelling}
	}
	return chain
}
