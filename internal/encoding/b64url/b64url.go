// Package b64url encodes and decodes unpadded base64url (RFC 4648 §5) in its
// one canonical spelling. Go's decoders skip '\r' and '\n' anywhere, and the
// non-strict ones accept non-zero unused bits in the last character, so one
// value has many spellings; Decode accepts only the spelling Encode writes.
package b64url

import (
	"encoding/base64"
	"errors"
	"strings"
)

var enc = base64.RawURLEncoding.Strict()

// ErrNotCanonical is returned by [Decode] for anything but the one spelling
// [Encode] gives.
var ErrNotCanonical = errors.New("not canonical unpadded base64url")

// Encode returns b in unpadded base64url.
func Encode(b []byte) string { return enc.EncodeToString(b) }

// Decode reads s, refusing line breaks, padding, characters outside the
// base64url alphabet and non-zero unused bits: for each value exactly one s
// decodes.
func Decode(s string) ([]byte, error) {
	return AppendDecode(nil, s)
}

// AppendDecode is [Decode] appending to dst, for callers that reuse buffers.
func AppendDecode(dst []byte, s string) ([]byte, error) {
	if strings.IndexByte(s, '\n') >= 0 || strings.IndexByte(s, '\r') >= 0 {
		return nil, ErrNotCanonical
	}
	b, err := enc.AppendDecode(dst, []byte(s))
	if err != nil {
		return nil, ErrNotCanonical
	}
	return b, nil
}
