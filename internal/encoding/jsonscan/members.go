package jsonscan

// A Member is one member of an object read by [Members]: its key and its
// value as written.
type Member struct {
	// Key is the bytes between the key's quotes (escapes as written).
	Key []byte
	// Value is the value's JSON.
	Value []byte
	// Plain: the value is a string without escapes or invalid UTF-8, so
	// the bytes between its quotes are its value.
	Plain bool
}

// Members reads data as exactly one JSON object, with encoding/json's
// syntax (the scanner's), and hands each of its members to member in
// order; it reports false when data is not one object (something after it
// included) or member returned false, after which no member is handed on.
// Keys are not checked for repeats: a reader that takes each key once (in
// the order of a struct's fields) refuses them itself. member is called
// directly, never kept, so that a caller's closure stays on its stack.
func Members(data []byte, member func(Member) bool) bool {
	s := scanner{data: data}
	s.space()
	if !s.at('{') {
		return false
	}
	s.pos++
	s.depth++
	if s.space(); s.at('}') {
		s.pos++
		return s.atEnd()
	}
	for {
		s.space()
		m, ok := s.memberOf()
		if !ok || !member(m) {
			return false
		}
		if s.space(); !s.at(',') && !s.at('}') {
			return false
		}
		if s.pos++; data[s.pos-1] == '}' {
			return s.atEnd()
		}
	}
}

// atEnd reports whether only white space follows s.pos.
func (s *scanner) atEnd() bool {
	s.space()
	return s.pos == len(s.data)
}

// memberOf reads `"key": value` at s.pos for Members.
func (s *scanner) memberOf() (Member, bool) {
	if !s.at('"') {
		return Member{}, false
	}
	key, err := s.str()
	if s.space(); err != nil || !s.at(':') {
		return Member{}, false
	}
	s.pos++
	s.space()
	start, plain := s.pos, false
	if s.at('"') {
		sp, err := s.str()
		if err != nil {
			return Member{}, false
		}
		plain = sp.plain
	} else if s.value(nil) != nil {
		return Member{}, false
	}
	return Member{Key: s.data[key.start:key.end], Value: s.data[start:s.pos], Plain: plain}, true
}
