package jsonscan

import (
	"bytes"
)

// Received is what one pass over a message a server receives (or a batch
// of them) found: what ask.CheckMessage refuses, read without decoding.
type Received struct {
	// Err is the first key given twice in one object at any depth
	// (Repeats' error, wrapping ErrAmbiguous), or a syntax
	// error when the data is not exactly one JSON value.
	Err error
	// Answers are the answers that need a closer look, in the order they
	// came: those holding two keys that differ only in letter case, and
	// those holding a key that the caller's odd said yes to. Nil when
	// there are none (no allocation).
	Answers []Answer
}

// Answer is one answer of a received message: an entry of its
// params.inputResponses, or the result of a response (a message without a
// method), found where the go-sdk's decoder (keys matched as written)
// finds them. The answers of a message that decoder cannot read as a
// request with params or as a response (a method that is not a string,
// params or inputResponses that are not objects) are not looked at: the
// go-sdk refuses that message itself.
type Answer struct {
	// Message is the message's place in a batch, -1 when the data is one
	// message.
	Message int
	// Result: the answer is the result of a response; otherwise an entry
	// of inputResponses, under Key.
	Result bool
	Key    string
	// Raw is the answer's JSON, a part of the data read.
	Raw []byte
	// Case is the first pair of keys of one object of the answer that
	// differ only in letter case (Keys' error, its path from the answer).
	Case error
	// Odd: a key of the answer is escaped, or one that odd said yes to.
	Odd bool
}

// Receive reads data, a JSON-RPC message or batch that a server receives,
// once: every object for keys given twice, and each answer (see [Answer])
// for keys that differ only in letter case, with each plain key of an
// answer (no escapes) passed to odd, which may be nil. It allocates only
// for what it reports.
func Receive(data []byte, odd func(key []byte) bool) Received {
	var r Received
	if len(bytes.TrimSpace(data)) == 0 {
		return r
	}
	s := newScanner(data, true)
	defer s.release()
	rc := &receiver{index: -1}
	s.oddKey = odd
	s.space()
	var err error
	switch {
	case s.at('['):
		err = s.batch(rc)
	case s.at('{'):
		err = s.message(rc)
	default:
		err = s.value(nil)
	}
	switch err = s.alone(err); {
	case err != nil:
		r.Err = err
	case s.repeat != nil:
		r.Err = s.repeat
	default:
		r.Answers = rc.found
	}
	return r
}

// receiver is the state of Receive: the message being read and the
// answers found.
type receiver struct {
	index int // the message's place in a batch, -1 for one message
	found []Answer

	// The message being read.
	unread  bool     // the go-sdk's decoder cannot read it: its answers are not looked at
	method  bool     // it has a method that is not "" (a request)
	answers []Answer // its inputResponses that need a look
	result  *Answer  // its result, when that needs a look
}

// The levels of a message whose members Receive reads: a pointer to one
// of them is passed to scanner.object as what it reads into.
type (
	inMessage   receiver
	inParams    receiver
	inResponses receiver
)

// batch reads a batch: each value that is an object a message.
func (s *scanner) batch(rc *receiver) error {
	return s.array(func(i int) error {
		rc.index = i
		if s.space(); s.at('{') {
			return s.message(rc)
		}
		return s.value(nil)
	})
}

// message reads one message at s.pos (an object) and keeps its answers
// that need a look.
func (s *scanner) message(rc *receiver) error {
	rc.unread, rc.method, rc.result, rc.answers = false, false, nil, rc.answers[:0]
	if err := s.object((*inMessage)(rc)); err != nil {
		return err
	}
	if rc.unread {
		return nil
	}
	rc.found = append(rc.found, rc.answers...)
	if rc.result != nil && !rc.method {
		rc.found = append(rc.found, *rc.result)
	}
	return nil
}

// received reads the value of one member of a message (into is what
// object reads into) and reports whether into was one of Receive's levels.
func (s *scanner) received(into any, key span) (bool, error) {
	switch rc := into.(type) {
	case *inMessage:
		return true, s.messageMember((*receiver)(rc), key)
	case *inParams:
		if !s.is(key, "inputResponses") {
			return true, s.value(nil)
		}
		return true, s.container((*receiver)(rc), (*inResponses)(rc))
	case *inResponses:
		a, err := s.answer(rc.index, key)
		if a != nil {
			rc.answers = append(rc.answers, *a)
		}
		return true, err
	}
	return false, nil
}

// messageMember reads a member of a message's top.
func (s *scanner) messageMember(rc *receiver, key span) error {
	switch {
	case s.is(key, "method"):
		start := s.pos
		if err := s.value(nil); err != nil {
			return err
		}
		v := span{start: start, end: s.pos, set: true}
		switch {
		case s.isNull(v):
			rc.method = false
		case s.data[start] == '"':
			rc.method = !s.isString(v, "")
		default:
			rc.unread = true
		}
		return nil
	case s.is(key, "params"):
		return s.container(rc, (*inParams)(rc))
	case s.is(key, "result"):
		a, err := s.answer(rc.index, span{})
		rc.result = a
		return err
	}
	return s.value(nil)
}

// container reads an object into level, null, or notes that the message
// is not read by the go-sdk's decoder (any other value where an object
// belongs).
func (s *scanner) container(rc *receiver, level any) error {
	if s.at('{') {
		return s.object(level)
	}
	start := s.pos
	if err := s.value(nil); err != nil {
		return err
	}
	if !s.isNull(span{start: start, end: s.pos}) {
		rc.unread = true
	}
	return nil
}

// answer reads one answer under key (none for a result), its keys folded
// and each passed to s.oddKey, and returns it when it needs a look.
func (s *scanner) answer(index int, key span) (*Answer, error) {
	start := s.pos
	outerCase, outerBase := s.caseErr, s.base
	s.fold, s.anyName, s.caseErr, s.base, s.odd = true, true, nil, len(s.stack), false
	err := s.value(nil)
	found, odd := s.caseErr, s.odd
	s.fold, s.anyName, s.caseErr, s.base, s.odd = false, false, outerCase, outerBase, false
	if err != nil || (found == nil && !odd) {
		return nil, err
	}
	a := &Answer{Message: index, Result: !key.set, Raw: s.data[start:s.pos], Case: found, Odd: odd}
	if key.set {
		a.Key = s.text(key)
	}
	return a, nil
}
