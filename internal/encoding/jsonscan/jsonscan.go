// Package jsonscan reads a JSON-RPC message's bytes once, as they cross the
// wire, and finds what a tester must check that a decoder does not keep: a
// key given twice in one object (a decoder keeps the last), and whether a
// result carries content at all (a decoder reads null, or a missing
// "content", as an empty list). The same pass validates the JSON and finds
// the message's id, method and whether it failed, so that a client that
// only checks answers never builds a second decoded message.
//
// It is a watcher over bytes, not a JSON-RPC implementation: the go-sdk
// still decodes and acts on every message. Its verdicts follow
// encoding/json's (what it accepts as JSON, how it decodes a key) and
// strictjson.CheckRepeats' (which keys repeat, the path in the error).
package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/askback/askback/internal/text/runecut"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// ErrAmbiguous is wrapped by the errors for objects whose keys repeat or
// differ only in letter case: decoders disagree on them (encoding/json
// keeps the last of two equal keys and matches struct fields in any case,
// the go-sdk's decoder matches them as written, a canonical form sorts
// both).
var ErrAmbiguous = errors.New("ambiguous JSON object")

// Fold returns the key under which s collides with every string equal to it
// under Unicode simple case folding: each letter becomes the smallest rune of
// its folding orbit. It is at least as broad as the case-insensitive field
// matching of encoding/json.
func Fold(s string) string {
	if folded, ok := foldASCII(s); ok {
		return folded
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		b.WriteRune(leastFold(r))
	}
	return b.String()
}

// foldASCII is Fold for s of ASCII alone; ok is false for any other s.
func foldASCII(s string) (folded string, ok bool) {
	lower := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return "", false
		}
		if 'a' <= c && c <= 'z' {
			lower = true
		}
	}
	// The smallest rune of an ASCII letter's orbit is its upper case.
	if !lower {
		return s, true
	}
	return strings.ToUpper(s), true
}

// leastFold returns the smallest rune of r's folding orbit.
func leastFold(r rune) rune {
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < least {
			least = f
		}
	}
	return least
}

// MaxDepth is the deepest nesting of objects and arrays accepted, as in
// encoding/json (the go-sdk refuses more than 1000 levels).
const MaxDepth = 10000

// manyKeys is the number of keys an object is checked for repeats by
// comparing each new key with the earlier ones; an object with more gets
// a set.
const manyKeys = 24

// Repeats reports, in one pass over data and with encoding/json's syntax,
// the first key that appears twice in one object at any depth (keys
// compared as decoded: "a" and "\u0061" are one key), as an error wrapping
// ErrAmbiguous with the path of its object ($.key[index]…), and otherwise
// a syntax error (wrapping ErrSyntax) when data is not exactly one JSON
// value: whichever comes first in data. Empty data passes. Nesting deeper
// than MaxDepth is refused, as encoding/json refuses it.
func Repeats(data []byte) error {
	return check(data, false)
}

// Keys is Repeats with keys that differ only in letter case (Unicode
// simple folding: "To" and "to", "k" and the Kelvin sign) refused too, at
// any depth: what a reader that matches keys in any case (encoding/json)
// reads otherwise than one that matches them as written.
func Keys(data []byte) error {
	return check(data, true)
}

// check is Repeats, or Keys with fold.
func check(data []byte, fold bool) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	s := newScanner(data, true)
	defer s.release()
	s.fold, s.anyName = fold, fold
	err := s.alone(s.value(nil))
	switch {
	case s.caseErr != nil:
		return s.caseErr // found before any repeat: addKey stops at the first repeat
	case s.repeat != nil:
		return s.repeat
	}
	return err
}

// Kind says what a message is.
type Kind int

const (
	// NotRPC is anything that is not a JSON-RPC 2.0 message the go-sdk
	// would decode: not JSON, not an object, no "jsonrpc": "2.0", an id of
	// the wrong type, a response without an id.
	NotRPC Kind = iota
	// Request is a request or a notification (it has a method).
	Request
	// Response is an answer to a request (no method, a valid id).
	Response
)

// Message is what one pass over a JSON-RPC message found.
type Message struct {
	Kind Kind
	// ID is the message's id as the go-sdk reads it (a number becomes an
	// integer); not valid for a notification.
	ID jsonrpc.ID
	// Method is a request's method.
	Method string
	// Failed: a response whose error is present and not null.
	Failed bool
	// Result is the top of a response's result.
	Result Result
	// Repeat is the first key given twice in one object of the message
	// itself ("id" twice: a decoder keeps the last) or of its result, at any
	// depth; the path in the message of a repeat inside the result starts
	// at the result ("$"). Repeats inside params or an error are not
	// looked for.
	Repeat error
	// Case is the first place where a reader that matches keys in any
	// letter case (encoding/json) reads the message otherwise than the
	// go-sdk, which matches them as written: two keys of one object of the
	// message itself or of its result that differ only in letter case
	// ("isError" and "IsError": strictjson.CheckKeys' message), or a
	// member of the message or of the result's top that the protocol
	// spells otherwise ("IsError" alone, "Result"). Nil when Repeat is set.
	Case error
	// Trailing: the message is followed by more than space (a second
	// message in one body, which the go-sdk does not read).
	Trailing bool
}

// Result is the top of a response's result.
type Result struct {
	Object  bool   // the result is a JSON object (not null, not missing)
	Content bool   // it has "content" and that is not null
	Task    bool   // it has "task" (a task handle)
	Type    string // its "resultType" when that is a string
	// BadIsError is set when it has an "isError" that is not true or
	// false (null, a string, a number): what clients read as success or
	// as failure, each its own way.
	BadIsError bool
}

// Answered reports whether the result of a tools/call says something: an
// object with content, or one that needs none (a question, resultType other
// than "complete", or a task handle).
func (r Result) Answered() bool {
	return r.Object && (r.Content || r.Task || (r.Type != "" && r.Type != "complete"))
}

// Scan reads one JSON-RPC message (not a batch): the first JSON value in
// data, as the go-sdk's decoder reads it (it ignores what follows). A
// message that is not JSON-RPC has Kind NotRPC.
func Scan(data []byte) Message {
	var m Message
	s := newScanner(data, false)
	defer s.release()
	s.space()
	if !s.at('{') {
		return m
	}
	var env envelope
	if s.object(&env) != nil {
		return m
	}
	// What follows the message is not read: the go-sdk's decoder stops
	// after the first value too, and acts on it. That something follows is
	// noted.
	if !env.version {
		return m
	}
	end := s.pos
	s.space()
	m.Trailing = s.pos < len(data)
	s.pos = end
	m.Repeat = s.repeat
	if m.Repeat == nil {
		m.Case = s.caseErr
	}
	if env.method.set {
		return s.request(m, &env)
	}
	return s.response(m, &env)
}

// request is Scan's m for a message with a method, a request or a
// notification; its Kind stays NotRPC when the method or id is not one.
func (s *scanner) request(m Message, env *envelope) Message {
	method, ok := s.stringValue(env.method)
	if !ok {
		return m
	}
	id, ok := s.id(env.id)
	if !ok {
		return m
	}
	m.Kind, m.ID, m.Method = Request, id, method
	return m
}

// response is Scan's m for a message without a method; its Kind stays
// NotRPC when it has no valid id.
func (s *scanner) response(m Message, env *envelope) Message {
	id, ok := s.id(env.id)
	if !ok || !id.IsValid() {
		return m
	}
	m.Kind, m.ID = Response, id
	m.Failed = env.err.set && !s.isNull(env.err)
	m.Result = env.result
	return m
}

// ScanResult reads a response's result alone (for transports that hand
// over decoded messages): its top and its first repeated key. Invalid JSON
// reads as no result.
func ScanResult(result []byte) (Result, error) {
	r, repeat, _ := scanResult(result, false)
	return r, repeat
}

// scanResult is ScanResult, with the first case difference (Message.Case)
// too when fold is set.
func scanResult(result []byte, fold bool) (Result, error, error) {
	if len(bytes.TrimSpace(result)) == 0 {
		return Result{}, nil, nil
	}
	var r Result
	s := newScanner(result, true)
	s.fold = fold
	defer s.release()
	s.space()
	top := &r
	if s.pos >= len(result) || result[s.pos] != '{' {
		top = nil
	}
	if err := s.value(top); err != nil {
		return Result{}, nil, nil
	}
	if s.space(); s.pos < len(result) {
		return Result{}, nil, nil
	}
	r.Object = top != nil
	if s.repeat != nil {
		return r, s.repeat, nil
	}
	return r, nil, s.caseErr
}

// span is a value's place in the data; for a string, the bytes between
// its quotes.
type span struct {
	start, end int
	set        bool
	plain      bool // a string without escapes or invalid UTF-8: its bytes are its value
	high       bool // a string with a byte outside ASCII
}

// envelope is the top of a message as the scan reads it: the last of
// each member, as a decoder keeps.
type envelope struct {
	version         bool
	id, method, err span
	result          Result
}

// frame is one open object or array of a checked value.
type frame struct {
	object   bool
	keysBase int                 // objects: where its keys start in scanner.keys
	seen     map[string]struct{} // objects with many keys: the keys as decoded
	folded   map[string]string   // objects with many keys, when folding: strictjson.Fold of each key → the key
	key      span                // objects: the key of the value being read
	index    int                 // arrays: the index of the value being read
}

type scanner struct {
	data  []byte
	pos   int
	depth int
	check bool // look for repeated keys (inside a result, or everywhere for Repeats)
	fold  bool // look for keys that differ only in letter case too (Scan: the message and its result)
	// anyName: with fold, keys are not held to the protocol's spelling of
	// its members (Keys reads any JSON).
	anyName bool
	stack   []frame // the checked containers open, outermost first
	keys    []span  // the keys read so far of the checked objects open
	repeat  error   // the first repeated key
	// caseErr is the first pair of keys that differ only in letter case,
	// or the first member spelled otherwise than the protocol spells it.
	caseErr error
	room    *room // where stack and keys came from, given back by release
	// base is where the innermost answer of Receive starts in stack: the
	// path of a case difference starts there.
	base int
	// oddKey, for Receive, is asked about each plain key of an answer (when
	// fold is set); odd says whether an answer had an escaped key or one
	// oddKey said yes to.
	oddKey func([]byte) bool
	odd    bool
	// canon: write the canonical form of what is read to out (Canonical),
	// stopping at the first ambiguous key; members are the members of the
	// objects being written, tmp their bytes while they are put in order.
	canon   bool
	out     []byte
	members []member
	tmp     []byte
}

// newScanner returns a scanner of data with room for the containers and
// keys of a usual message, taken from those that earlier scans gave back
// (release): a session scans every answer it reads, and the room of one
// scan serves the next.
func newScanner(data []byte, check bool) scanner {
	r, _ := rooms.Get().(*room)
	if r == nil {
		r = &room{stack: make([]frame, 0, 16), keys: make([]span, 0, 64)}
	}
	return scanner{data: data, check: check, stack: r.stack[:0], keys: r.keys[:0], members: r.members[:0], tmp: r.tmp[:0], room: r}
}

// room is the space a scan works in.
type room struct {
	stack   []frame
	keys    []span
	members []member // Canonical's
	tmp     []byte   // Canonical's
}

// rooms keeps the room of finished scans for the next ones.
var rooms sync.Pool

// maxRoom bounds the room kept for later scans: a message with thousands
// of keys or containers does not leave that much behind.
const maxRoom = 1024

// release gives the scanner's room back for another scan; the scanner is
// not used after.
func (s *scanner) release() {
	r := s.room
	s.out = nil
	if r == nil || cap(s.stack) > maxRoom || cap(s.keys) > maxRoom || cap(s.members) > maxRoom || cap(s.tmp) > 16*maxRoom {
		return
	}
	clear(s.stack[:cap(s.stack)]) // the sets of keys of large objects go
	r.stack, r.keys, r.members, r.tmp = s.stack[:0], s.keys[:0], s.members[:0], s.tmp[:0]
	s.room = nil
	rooms.Put(r)
}

// ErrTooDeep is wrapped by the errors of Repeats and Keys for data nested
// deeper than MaxDepth; the error says where ($.key[index]…, or a byte).
var ErrTooDeep = fmt.Errorf("nested deeper than %d", MaxDepth)

// clip is the start of a path too deep to show whole, then "…".
func clip(path string) string {
	const shown = 200
	if len(path) <= shown {
		return path
	}
	return runecut.Prefix(path, shown) + "…"
}

// ErrSyntax is wrapped by the errors of Repeats and Keys for data that is
// not exactly one JSON value.
var ErrSyntax = errors.New("invalid JSON")

func (s *scanner) syntax() error {
	return fmt.Errorf("%w at byte %d", ErrSyntax, s.pos)
}

// at reports whether the byte at s.pos is c.
func (s *scanner) at(c byte) bool {
	return s.pos < len(s.data) && s.data[s.pos] == c
}

func (s *scanner) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// value reads one value after optional space. top, when set and the value
// is an object, receives the top of a result.
func (s *scanner) value(top *Result) error {
	s.space()
	if s.pos >= len(s.data) {
		return s.syntax()
	}
	switch s.data[s.pos] {
	case '{':
		if top != nil {
			return s.object(top)
		}
		return s.object(nil)
	case '[':
		return s.array(nil)
	case '"':
		return s.stringElement()
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return s.numberElement()
	}
	return s.syntax()
}

// stringElement reads a string that is a value (not a key), written in
// canonical form too when s.canon.
func (s *scanner) stringElement() error {
	sp, err := s.str()
	if err == nil && s.canon {
		s.canonString(sp)
	}
	return err
}

// numberElement reads a number, written in canonical form too when s.canon.
func (s *scanner) numberElement() error {
	start := s.pos
	err := s.number()
	if err == nil && s.canon {
		return s.canonNumber(start)
	}
	return err
}

func (s *scanner) literal(word string) error {
	if len(s.data)-s.pos < len(word) || string(s.data[s.pos:s.pos+len(word)]) != word {
		return s.syntax()
	}
	s.pos += len(word)
	if s.canon {
		s.out = append(s.out, word...)
	}
	return nil
}

// number reads a number at s.pos: an optional minus sign, an integer
// part, then an optional fraction and exponent.
func (s *scanner) number() error {
	i := s.pos
	if s.data[i] == '-' {
		i++
	}
	i, ok := s.integerPart(i)
	if ok {
		i, ok = s.fraction(i)
	}
	if ok {
		i, ok = s.exponent(i)
	}
	s.pos = i
	if !ok {
		return s.syntax()
	}
	return nil
}

// The parts of a number each read from s.data[i] and return where they
// end, or false and where they go wrong.

// integerPart reads 0, or a digit from 1 to 9 and the digits after it.
func (s *scanner) integerPart(i int) (int, bool) {
	switch {
	case !s.digitAt(i):
		return i, false
	case s.data[i] == '0':
		return i + 1, true
	}
	return s.digitsEnd(i + 1), true
}

// fraction reads a point and one or more digits, if a point comes next.
func (s *scanner) fraction(i int) (int, bool) {
	if i >= len(s.data) || s.data[i] != '.' {
		return i, true
	}
	if !s.digitAt(i + 1) {
		return i + 1, false
	}
	return s.digitsEnd(i + 1), true
}

// exponent reads an e or E, an optional sign and one or more digits, if
// an e comes next.
func (s *scanner) exponent(i int) (int, bool) {
	d := s.data
	if i >= len(d) || (d[i] != 'e' && d[i] != 'E') {
		return i, true
	}
	i++
	if i < len(d) && (d[i] == '+' || d[i] == '-') {
		i++
	}
	if !s.digitAt(i) {
		return i, false
	}
	return s.digitsEnd(i), true
}

// digitAt reports whether s.data[i] is a decimal digit.
func (s *scanner) digitAt(i int) bool {
	return i < len(s.data) && '0' <= s.data[i] && s.data[i] <= '9'
}

// digitsEnd returns where the run of digits at s.data[i] ends.
func (s *scanner) digitsEnd(i int) int {
	for s.digitAt(i) {
		i++
	}
	return i
}

// str reads a string at s.pos (a quote) and returns the span of its
// contents.
func (s *scanner) str() (span, error) {
	d := s.data
	i := s.pos + 1
	sp := span{start: i, set: true, plain: true}
	high := false
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			sp.end = i
			s.pos = i + 1
			if high && sp.plain && !utf8.Valid(d[sp.start:sp.end]) {
				sp.plain = false
			}
			sp.high = high
			return sp, nil
		case c == '\\':
			sp.plain = false
			end, ok := s.escape(i + 1)
			if !ok {
				s.pos = end
				return sp, s.syntax()
			}
			i = end
		case c < 0x20:
			s.pos = i
			return sp, s.syntax()
		default:
			if c >= utf8.RuneSelf {
				high = true
			}
			i++
		}
	}
	s.pos = i
	return sp, s.syntax()
}

// escape reads the escape whose backslash comes before s.data[i] and
// returns where it ends, or false and where it goes wrong when it is not
// one JSON allows.
func (s *scanner) escape(i int) (int, bool) {
	d := s.data
	if i >= len(d) {
		return i, false
	}
	switch d[i] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return i + 1, true
	case 'u':
		for k := 1; k <= 4; k++ {
			if i+k >= len(d) || !isHex(d[i+k]) {
				return i + k, false
			}
		}
		return i + 5, true
	}
	return i, false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// text returns a string's value as encoding/json decodes it.
func (s *scanner) text(sp span) string {
	raw := s.data[sp.start:sp.end]
	if sp.plain {
		return string(raw)
	}
	var v string
	_ = json.Unmarshal(s.data[sp.start-1:sp.end+1], &v)
	return v
}

// is reports whether the string at sp decodes to word.
func (s *scanner) is(sp span, word string) bool {
	if sp.plain {
		return string(s.data[sp.start:sp.end]) == word
	}
	return s.text(sp) == word
}

// sameKey reports whether two keys decode alike.
func (s *scanner) sameKey(a, b span) bool {
	if a.plain && b.plain {
		return bytes.Equal(s.data[a.start:a.end], s.data[b.start:b.end])
	}
	return s.text(a) == s.text(b)
}

func (s *scanner) enter() error {
	if s.depth++; s.depth > MaxDepth {
		where := fmt.Sprintf("byte %d", s.pos)
		if s.check && len(s.stack) > 0 {
			where = clip(s.path(0))
		}
		return fmt.Errorf("%w at %s", ErrTooDeep, where)
	}
	return nil
}

// alone is err, the error of reading the one value data holds, or, when
// that is nil and more than white space follows the value, an error
// wrapping [ErrSyntax] at where it begins.
func (s *scanner) alone(err error) error {
	if err == nil {
		if s.space(); s.pos < len(s.data) {
			return fmt.Errorf("%w at byte %d: more than one JSON value", ErrSyntax, s.pos)
		}
	}
	return err
}

// array reads the array at s.pos, each element by elem, which is told the
// element's index (nil: each is a value read by s.value).
func (s *scanner) array(elem func(i int) error) error {
	if err := s.enter(); err != nil {
		return err
	}
	s.pos++ // '['
	if s.check {
		s.stack = append(s.stack, frame{})
	}
	if s.canon {
		s.out = append(s.out, '[')
	}
	s.space()
	if s.at(']') {
		return s.leave(']')
	}
	for i := 0; ; i++ {
		var err error
		if elem == nil {
			err = s.value(nil)
		} else {
			err = elem(i)
		}
		if err != nil {
			return err
		}
		switch more, err := s.next(']'); {
		case err != nil:
			return err
		case !more:
			return s.leave(']')
		}
		if s.check {
			s.stack[len(s.stack)-1].index++
		}
	}
}

// next reads what follows an element of an array or a member of an
// object, whose closing bracket is end: a comma (more follows) or end
// (the container is left).
func (s *scanner) next(end byte) (more bool, err error) {
	s.space()
	if s.pos >= len(s.data) {
		return false, s.syntax()
	}
	switch s.data[s.pos] {
	case ',':
		s.pos++
		if s.canon {
			s.out = append(s.out, ',')
		}
		return true, nil
	case end:
		return false, nil
	}
	return false, s.syntax()
}

// leave ends the container at s.pos (its closing bracket, end).
func (s *scanner) leave(end byte) error {
	s.pos++
	s.depth--
	if s.canon && end == ']' {
		s.out = append(s.out, ']')
	}
	if s.check {
		f := s.stack[len(s.stack)-1]
		if f.object {
			s.keys = s.keys[:f.keysBase]
		}
		s.stack = s.stack[:len(s.stack)-1]
	}
	return nil
}

// object reads an object. into is nil, a *Result (the top of a result:
// its keys are checked and its content, task and resultType noted), an
// *envelope (the top of a message: its own keys are checked, its members
// noted, and its result read as a checked value), a *locating (Locate's:
// the members a path goes on through are located) or one of Receive's
// levels.
func (s *scanner) object(into any) error {
	if err := s.enter(); err != nil {
		return err
	}
	s.pos++ // '{'
	env, _ := into.(*envelope)
	checked := s.check || env != nil
	if checked {
		s.stack = append(s.stack, frame{object: true, keysBase: len(s.keys)})
	}
	open, base := len(s.out), len(s.members)
	if s.canon {
		s.out = append(s.out, '{')
	}
	s.space()
	if s.at('}') {
		return s.leaveObject(checked, base, open)
	}
	for {
		s.space()
		if !s.at('"') {
			return s.syntax()
		}
		key, err := s.str()
		if err != nil {
			return err
		}
		if checked {
			s.addKey(key, env != nil)
		}
		if s.canon {
			if err := s.writeKey(key); err != nil {
				return err
			}
		}
		s.space()
		if !s.at(':') {
			return s.syntax()
		}
		s.pos++
		s.space()
		if err := s.memberValue(into, key); err != nil {
			return err
		}
		if s.canon {
			s.members[len(s.members)-1].end = len(s.out)
		}
		switch more, err := s.next('}'); {
		case err != nil:
			return err
		case !more:
			return s.leaveObject(checked, base, open)
		}
	}
}

// writeKey writes key in canonical form, or stops the reading (errStop)
// when a repeated key or a case difference has decided its outcome.
func (s *scanner) writeKey(key span) error {
	if s.repeat != nil || s.caseErr != nil {
		return errStop
	}
	s.canonKey(key)
	return nil
}

// memberValue reads the value of the member key of an object read into
// into (see object).
func (s *scanner) memberValue(into any, key span) error {
	start := s.pos
	switch into := into.(type) {
	case *envelope:
		return s.member(into, key)
	case *Result:
		err := s.value(nil)
		if err == nil && into != nil {
			s.note(into, key, span{start: start, end: s.pos, set: true})
		}
		return err
	case *locating:
		return s.locateMember(into, key)
	}
	if ok, err := s.received(into, key); ok {
		return err
	}
	return s.value(nil)
}

// leaveObject ends the object at s.pos (its closing brace) whose
// members, written in canonical form, start at s.members[base] and whose
// '{' is at s.out[open].
func (s *scanner) leaveObject(checked bool, base, open int) error {
	if s.canon {
		s.canonClose(base, open)
	}
	if checked {
		return s.leave('}')
	}
	s.pos++
	s.depth--
	return nil
}

// member reads the value of one member of a message's top.
func (s *scanner) member(env *envelope, key span) error {
	start := s.pos
	var err error
	switch {
	case s.is(key, "result"):
		// The result is checked, its path starting at "$".
		outer, outerKeys := s.stack, len(s.keys)
		s.stack, s.check, s.fold = s.stack[len(s.stack):], true, true
		env.result = Result{}
		if s.at('{') {
			err = s.value(&env.result)
			env.result.Object = err == nil
		} else {
			err = s.value(nil)
		}
		s.stack, s.check, s.fold = outer, false, false
		s.keys = s.keys[:outerKeys]
		return err
	default:
		err = s.value(nil)
	}
	if err != nil {
		return err
	}
	sp := span{start: start, end: s.pos, set: true}
	switch {
	case s.is(key, "jsonrpc"):
		env.version = s.isString(sp, "2.0")
	case s.is(key, "id"):
		env.id = sp
	case s.is(key, "method"):
		env.method = sp
	case s.is(key, "error"):
		env.err = sp
	}
	return nil
}

// note records a member of a result's top.
func (s *scanner) note(top *Result, key, value span) {
	switch {
	case s.is(key, "content"):
		top.Content = !s.isNull(value)
	case s.is(key, "task"):
		top.Task = true
	case s.is(key, "isError"):
		v := string(s.data[value.start:value.end])
		top.BadIsError = v != "true" && v != "false"
	case s.is(key, "resultType"):
		top.Type = ""
		if s.data[value.start] == '"' {
			top.Type = s.text(span{start: value.start + 1, end: value.end - 1, plain: s.plainString(value)})
		}
	}
}

func (s *scanner) isNull(v span) bool {
	return v.end-v.start == 4 && string(s.data[v.start:v.end]) == "null"
}

// isString reports whether the value at v is a string that decodes to word.
func (s *scanner) isString(v span, word string) bool {
	if s.data[v.start] != '"' {
		return false
	}
	return s.is(span{start: v.start + 1, end: v.end - 1, plain: s.plainString(v)}, word)
}

// plainString reports whether the string value at v has neither escapes
// nor invalid UTF-8.
func (s *scanner) plainString(v span) bool {
	b := s.data[v.start+1 : v.end-1]
	return bytes.IndexByte(b, '\\') < 0 && utf8.Valid(b)
}

// stringValue decodes a method: a string, or null read as "".
func (s *scanner) stringValue(v span) (string, bool) {
	switch {
	case s.isNull(v):
		return "", true
	case s.data[v.start] != '"':
		return "", false
	}
	return s.text(span{start: v.start + 1, end: v.end - 1, plain: s.plainString(v)}), true
}

// id reads an id as the go-sdk does: a number becomes an integer (its
// float64 value truncated), a string stays one, null or none is no id.
func (s *scanner) id(v span) (jsonrpc.ID, bool) {
	if !v.set || s.isNull(v) {
		return jsonrpc.ID{}, true
	}
	switch c := s.data[v.start]; {
	case c == '"':
		id, err := jsonrpc.MakeID(s.text(span{start: v.start + 1, end: v.end - 1, plain: s.plainString(v)}))
		return id, err == nil
	case c == '-' || ('0' <= c && c <= '9'):
		f, err := strconv.ParseFloat(string(s.data[v.start:v.end]), 64)
		if err != nil {
			return jsonrpc.ID{}, false
		}
		id, err := jsonrpc.MakeID(f)
		return id, err == nil
	}
	return jsonrpc.ID{}, false
}

// addKey checks a key of the innermost object against its earlier keys
// and makes it the key of the value to read. With fold (and for the
// message's own keys), a key that differs from an earlier one only in
// letter case, or that the protocol spells otherwise, is noted too.
func (s *scanner) addKey(key span, envelope bool) {
	f := &s.stack[len(s.stack)-1]
	f.key = key
	if s.oddKey != nil && s.fold && !s.odd {
		s.odd = !key.plain || s.oddKey(s.data[key.start:key.end])
	}
	if s.repeat != nil {
		return
	}
	fold := (s.fold || envelope) && s.caseErr == nil
	if f.seen != nil {
		s.addIndexedKey(f, key, envelope, fold)
	} else {
		earlier := s.keys[f.keysBase:]
		for _, e := range earlier {
			if s.sameKey(e, key) {
				s.repeated(key, envelope)
				return
			}
			if fold && s.caseErr == nil && s.foldKey(e, key) {
				s.caseDiffers(s.text(e), s.text(key), envelope)
			}
		}
		if len(earlier) < manyKeys {
			s.keys = append(s.keys, key)
		} else {
			s.index(f, append(earlier, key), s.fold || envelope)
		}
	}
	// After the earlier keys: two keys in two cases say more than a
	// spelling.
	if fold && !s.anyName && s.caseErr == nil && s.repeat == nil {
		s.spelling(key, envelope, len(s.stack) == 1)
	}
}

// addIndexedKey is addKey for an object with many keys, which f indexes
// by their text (and folded, with fold).
func (s *scanner) addIndexedKey(f *frame, key span, envelope, fold bool) {
	k := s.text(key)
	if _, dup := f.seen[k]; dup {
		s.repeated(key, envelope)
		return
	}
	f.seen[k] = struct{}{}
	if !fold || f.folded == nil {
		return
	}
	fk := Fold(k)
	if prev, ok := f.folded[fk]; ok {
		s.caseDiffers(prev, k, envelope)
	} else {
		f.folded[fk] = k
	}
}

// index makes f index keys, the keys of an object that has many, by their
// text (and folded too, with fold), for addIndexedKey.
func (s *scanner) index(f *frame, keys []span, fold bool) {
	f.seen = make(map[string]struct{}, 2*manyKeys)
	if fold {
		f.folded = make(map[string]string, 2*manyKeys)
	}
	for _, e := range keys {
		k := s.text(e)
		f.seen[k] = struct{}{}
		if f.folded == nil {
			continue
		}
		if _, ok := f.folded[Fold(k)]; !ok {
			f.folded[Fold(k)] = k
		}
	}
}

// foldKey reports whether two keys are equal under Unicode simple case
// folding (strictjson.Fold).
func (s *scanner) foldKey(a, b span) bool {
	if a.plain && b.plain {
		return bytes.EqualFold(s.data[a.start:a.end], s.data[b.start:b.end])
	}
	return strings.EqualFold(s.text(a), s.text(b))
}

// caseDiffers records two keys that differ only in letter case.
func (s *scanner) caseDiffers(prev, k string, envelope bool) {
	if envelope {
		s.caseErr = fmt.Errorf("%w: keys %q and %q differ only in letter case in the JSON-RPC message", ErrAmbiguous, prev, k)
		return
	}
	s.caseErr = fmt.Errorf("%w: keys %q and %q differ only in letter case in the object at %s", ErrAmbiguous, prev, k, s.path(s.base))
}

// messageNames are the members of a JSON-RPC message; resultNames those
// of a result's top (of tools/call, with its questions and task handle,
// and of the other results a client reads).
var (
	messageNames = []string{"jsonrpc", "id", "method", "params", "result", "error"}
	resultNames  = []string{"content", "structuredContent", "isError", "resultType", "task", "_meta", "inputRequests", "requestState",
		"tools", "prompts", "resources", "resourceTemplates", "contents", "messages", "nextCursor", "completion",
		"protocolVersion", "capabilities", "serverInfo", "instructions", "taskId", "status", "statusMessage"}
)

// spelling notes a member of the message (envelope) or of the result's
// top (top) that the protocol spells otherwise: a reader that matches
// keys in any case takes "IsError" for "isError", the go-sdk does not.
func (s *scanner) spelling(key span, envelope, top bool) {
	var names []string
	switch {
	case envelope:
		names = messageNames
	case top:
		names = resultNames
	default:
		return
	}
	for _, n := range names {
		if s.is(key, n) {
			return
		}
	}
	for _, n := range names {
		if s.keyFolds(key, n) {
			where := "the result"
			if envelope {
				where = "the JSON-RPC message"
			}
			s.caseErr = fmt.Errorf("%w: %s has %q, which a reader that matches keys in any letter case takes for %q (the go-sdk does not)", ErrAmbiguous, where, s.text(key), n)
			return
		}
	}
}

// keyFolds reports whether the key at key is name in some letter case.
func (s *scanner) keyFolds(key span, name string) bool {
	if key.plain {
		return bytes.EqualFold(s.data[key.start:key.end], []byte(name))
	}
	return strings.EqualFold(s.text(key), name)
}

// repeated records the first repeated key, with the path of its object
// built only now.
func (s *scanner) repeated(key span, envelope bool) {
	k := s.text(key)
	if envelope {
		s.repeat = fmt.Errorf("%w: key %q appears twice in the JSON-RPC message", ErrAmbiguous, k)
		return
	}
	s.repeat = fmt.Errorf("%w: key %q appears twice in the object at %s", ErrAmbiguous, k, s.path(0))
}

// path is where the innermost object is, from the container open at
// stack[base] (the result, or an answer: "$").
func (s *scanner) path(base int) string {
	path := []byte("$")
	for _, f := range s.stack[base : len(s.stack)-1] {
		if f.object {
			path = append(path, '.')
			path = append(path, s.text(f.key)...)
		} else {
			path = append(path, '[')
			path = strconv.AppendInt(path, int64(f.index), 10)
			path = append(path, ']')
		}
	}
	return string(path)
}

// Decoded is what Scan would find in a message a transport has already
// decoded, except a key given twice in the message itself, which its
// decoding has lost: the result (a response's raw bytes) is scanned.
func Decoded(msg jsonrpc.Message) Message {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		return Message{Kind: Request, ID: m.ID, Method: m.Method}
	case *jsonrpc.Response:
		r := Message{Kind: Response, ID: m.ID, Failed: m.Error != nil}
		r.Result, r.Repeat, r.Case = scanResult(m.Result, true)
		return r
	}
	return Message{}
}
