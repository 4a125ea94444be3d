// Package strictjson decodes untrusted JSON in one canonical reading: an
// object whose keys repeat, or differ only in letter case, is refused at any
// depth, and so is anything after the value.
//
// Decoders disagree on such objects: encoding/json keeps the last of two equal
// keys and matches struct fields case-insensitively, the go-sdk's decoder
// matches them case-sensitively, a canonical form sorts both. Whatever one of
// them checks, another may act on differently; refusing the object closes
// that gap.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/askback/askback/internal/encoding/jsonscan"
	sdkjson "github.com/segmentio/encoding/json"
)

// ErrAmbiguous is wrapped by the errors for objects whose keys repeat or
// differ only in letter case.
var ErrAmbiguous = jsonscan.ErrAmbiguous

// CheckKeys reports an error wrapping [ErrAmbiguous] when an object in data,
// at any depth, has a key twice or two keys equal under Unicode case folding
// ("To" and "to", "k" and the Kelvin sign), and a syntax error when data is
// not exactly one JSON value, whichever comes first in data. Empty data
// passes. The one pass is jsonscan's scanner (jsonscan.Keys); a syntax
// error is told in encoding/json's words.
func CheckKeys(data []byte) error { return worded(data, jsonscan.Keys(data)) }

// CheckRepeats is [CheckKeys] for JSON whose keys are read as written (as a
// person's tool arguments are sent on): only a key that appears twice in
// one object is refused; keys that differ only in letter case pass.
func CheckRepeats(data []byte) error { return worded(data, jsonscan.Repeats(data)) }

// worded returns err, the scanner's verdict on data, with a syntax error
// told as encoding/json tells it (nesting too deep as the scanner tells
// it: with the path).
func worded(data []byte, err error) error {
	if err == nil || !errors.Is(err, jsonscan.ErrSyntax) {
		return err
	}
	return syntaxError(data)
}

// MaxDepth bounds how deeply arrays and objects nest, as encoding/json
// bounds it when it decodes.
const MaxDepth = jsonscan.MaxDepth

// syntaxError is encoding/json's account of data, which is not exactly one
// JSON value: the error of the token it stops at, io.ErrUnexpectedEOF for
// data that ends inside a value, "more than one JSON value" for data that
// goes on after it.
func syntaxError(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	depth := 0
	for values := 0; ; {
		tok, err := dec.Token()
		switch {
		case err == io.EOF && depth > 0:
			return io.ErrUnexpectedEOF
		case err != nil:
			return err
		}
		if depth == 0 {
			if values++; values > 1 {
				return errors.New("more than one JSON value")
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}

// Decode checks data with [CheckKeys] and decodes it into v with
// encoding/json. Empty data decodes as {}.
func Decode(data []byte, v any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	if err := CheckKeys(data); err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// DecodeKnown is [Decode] for a document of known fields (a recording's
// line, a cache file): exactly one JSON object, no key twice or in two
// letter cases ([CheckKeys]), no member v has no field for
// (encoding/json's unknown-field error), nothing after it. Empty data is
// an error.
func DecodeKnown(data []byte, v any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return errors.New("no JSON value")
	}
	if err := CheckKeys(data); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// DecodeAsSDK reads data into v exactly as the go-sdk reads a message
// (its decoder is github.com/segmentio/encoding/json with struct fields
// matched case-sensitively: "Method" is not "method"), after refusing what
// decoders read differently: a key twice in one object at any depth
// ([CheckRepeats]: the go-sdk keeps the last, others the first), and
// anything after the value. A check that runs before the go-sdk reads the
// same message with it, so that the check and the handler agree on what
// was sent; what it refuses must not reach the go-sdk either. Empty data
// is an error.
func DecodeAsSDK(data []byte, v any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return errors.New("no JSON value")
	}
	if err := CheckRepeats(data); err != nil {
		return err
	}
	return DecodeLikeSDK(data, v)
}

// DecodeLikeSDK reads data into v with the go-sdk's decoder, as
// [DecodeAsSDK] does, without its checks: for data already checked.
func DecodeLikeSDK(data []byte, v any) error {
	dec := sdkjson.NewDecoder(bytes.NewReader(data))
	dec.DontMatchCaseInsensitiveStructFields()
	return dec.Decode(v)
}

// Fold returns the key under which s collides with every string equal to it
// under Unicode simple case folding (jsonscan.Fold): each letter becomes the
// smallest rune of its folding orbit. It is at least as broad as the
// case-insensitive field matching of encoding/json.
func Fold(s string) string { return jsonscan.Fold(s) }
