package reqstate

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/askback/askback/internal/b64url"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Binding is what a state belongs to. [Open] refuses a state whose binding
// differs from the binding of the request it arrives with.
type Binding struct {
	// Subject is the authenticated user ("" when there is none).
	Subject string
	// Method is the MCP method: "tools/call", "prompts/get" or "resources/read".
	Method string
	// Name is the tool or prompt name, or the resource URI.
	Name string
	// Args is the digest of the canonical arguments (see [ArgsDigest]).
	Args string
}

// BindRequest returns the binding of a server-side tools/call, prompts/get or
// resources/read request, with the given subject.
func BindRequest(req mcp.Request, subject string) (Binding, error) {
	if req == nil {
		return Binding{}, errors.New("bind requestState: no request")
	}
	b := Binding{Subject: subject}
	var args []byte
	switch p := req.GetParams().(type) {
	case *mcp.CallToolParamsRaw:
		if p == nil {
			return Binding{}, errors.New("bind requestState: no params")
		}
		b.Method, b.Name, args = "tools/call", p.Name, p.Arguments
	case *mcp.GetPromptParams:
		if p == nil {
			return Binding{}, errors.New("bind requestState: no params")
		}
		b.Method, b.Name = "prompts/get", p.Name
		var err error
		if args, err = json.Marshal(p.Arguments); err != nil {
			return Binding{}, fmt.Errorf("bind requestState: %w", err)
		}
	case *mcp.ReadResourceParams:
		if p == nil {
			return Binding{}, errors.New("bind requestState: no params")
		}
		b.Method, b.Name = "resources/read", p.URI
	default:
		return Binding{}, fmt.Errorf("bind requestState: %T is not a tools/call, prompts/get or resources/read request", p)
	}
	d, err := ArgsDigest(args)
	if err != nil {
		return Binding{}, fmt.Errorf("bind requestState: arguments: %w", err)
	}
	b.Args = d
	return b, nil
}

// ArgsDigest returns the SHA-256 digest (base64url) of the canonical form of a
// JSON arguments object. The canonical form ignores key order and
// insignificant whitespace, writes numbers in one way (1, 1.0 and 1e0 are
// equal), and treats absent, null and empty arguments alike.
func ArgsDigest(raw []byte) (string, error) {
	buf := canonBuffers.Get().(*[]byte)
	defer canonBuffers.Put(buf)
	c, err := appendCanonical((*buf)[:0], raw)
	if err != nil {
		return "", err
	}
	*buf = c
	sum := sha256.Sum256(c)
	return b64url.Encode(sum[:]), nil
}

// canonBuffers recycles the buffers canonical forms are written into.
var canonBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// CanonicalJSON returns the canonical form of a JSON value: object keys
// sorted, no insignificant whitespace, numbers normalised, strings escaped the
// same way each time. Empty input and null become {}.
//
// A value with an object, at any depth, whose keys repeat or differ only in
// letter case has no canonical form: decoders disagree on which of the keys
// counts (encoding/json takes the last one and ignores case), so a digest of
// it would not bind what a handler acts on. CanonicalJSON refuses it with an
// error wrapping [ErrAmbiguousArguments].
func CanonicalJSON(raw []byte) ([]byte, error) {
	return appendCanonical(nil, raw)
}

// canonicalNumber writes integers as they are (minus a negative zero) and
// other numbers as the shortest decimal of their float64 value, with integral
// values below 2^53 written as integers.
func canonicalNumber(n json.Number) string {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		if s == "-0" {
			return "0"
		}
		return s
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return s
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
