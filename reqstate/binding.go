package reqstate

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/askback/askback/internal/b64url"
	"github.com/askback/askback/internal/strictjson"
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
	c, err := CanonicalJSON(raw)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(c)
	return b64url.Encode(sum[:]), nil
}

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
	if len(bytes.TrimSpace(raw)) == 0 {
		return []byte("{}"), nil
	}
	if err := strictjson.CheckKeys(raw); err != nil {
		if errors.Is(err, strictjson.ErrAmbiguous) {
			return nil, fmt.Errorf("%w: %v", ErrAmbiguousArguments, err)
		}
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after JSON value")
	}
	if v == nil {
		return []byte("{}"), nil
	}
	var buf bytes.Buffer
	if err := writeCanonical(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeCanonical(buf *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		buf.WriteString(strconv.FormatBool(v))
	case json.Number:
		buf.WriteString(canonicalNumber(v))
	case string:
		writeString(buf, v)
	case []any:
		buf.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeCanonical(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, k)
			buf.WriteByte(':')
			if err := writeCanonical(buf, v[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	default:
		return fmt.Errorf("unexpected JSON value %T", v)
	}
	return nil
}

func writeString(buf *bytes.Buffer, s string) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)           // a string always encodes
	buf.Truncate(buf.Len() - 1) // Encode appends a newline
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
