package recording

import (
	"encoding/json"
	"strconv"
)

// appendEntry appends e to dst as json.Marshal writes it, byte for byte,
// without reflection: ok is false, and nothing appended, when e holds what
// only json.Marshal writes right (a text with a character it escapes, a
// time it writes with an exponent, a message that is not compact or not
// valid), and the caller marshals it.
func appendEntry(dst []byte, e *Entry) (out []byte, ok bool) {
	start := len(dst)
	if e.At != 0 && (e.At < 1e-6 || e.At >= 1e21) {
		return dst, false
	}
	dst = append(dst, `{"t_ms":`...)
	dst = strconv.AppendFloat(dst, e.At, 'f', -1, 64)
	if dst, ok = appendField(dst, "dir", e.Dir); !ok {
		return dst[:start], false
	}
	if len(e.Message) > 0 {
		if !compactJSON(e.Message) {
			return dst[:start], false
		}
		dst = append(dst, `,"msg":`...)
		dst = append(dst, e.Message...)
	}
	if dst, ok = appendField(dst, "event", e.Event); !ok {
		return dst[:start], false
	}
	if h := e.HTTP; h != nil {
		dst = append(dst, `,"http":{`...)
		at := len(dst)
		for _, f := range [...]struct{ name, v string }{{"method", h.Method}, {"path", h.Path}} {
			if dst, ok = appendField(dst, f.name, f.v); !ok {
				return dst[:start], false
			}
		}
		if h.Status != 0 {
			dst = append(dst, `,"status":`...)
			dst = strconv.AppendInt(dst, int64(h.Status), 10)
		}
		for _, f := range [...]struct{ name, v string }{{"session", h.Session}, {"stream", h.Stream},
			{"event_id", h.EventID}, {"last_event_id", h.LastEventID}, {"content_type", h.ContentType},
			{"protocol_version", h.ProtocolVersion}} {
			if dst, ok = appendField(dst, f.name, f.v); !ok {
				return dst[:start], false
			}
		}
		if len(dst) > at {
			dst = append(dst[:at], dst[at+1:]...) // the object's first member has no comma
		}
		dst = append(dst, '}')
	}
	for _, f := range [...]struct{ name, v string }{{"raw", e.Raw}, {"note", e.Note}} {
		if dst, ok = appendField(dst, f.name, f.v); !ok {
			return dst[:start], false
		}
	}
	return append(dst, '}'), true
}

// appendField appends `,"name":"v"` when v is not empty (omitempty), and
// reports false when v has a byte json.Marshal would escape.
func appendField(dst []byte, name, v string) ([]byte, bool) {
	if v == "" {
		return dst, true
	}
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c < 0x20 || c >= 0x7f, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return dst, false
		}
	}
	dst = append(dst, ',', '"')
	dst = append(dst, name...)
	dst = append(dst, `":"`...)
	dst = append(dst, v...)
	return append(dst, '"'), true
}

// compactJSON reports whether json.Marshal writes msg, a json.RawMessage,
// as it is: valid JSON without space between its tokens and without a
// character it escapes (< > & U+2028 U+2029).
func compactJSON(msg []byte) bool {
	in := false
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		switch {
		case c == '<' || c == '>' || c == '&':
			return false
		case c == 0xE2 && i+2 < len(msg) && msg[i+1] == 0x80 && msg[i+2]&^1 == 0xA8:
			return false
		case in:
			if c == '\\' {
				i++
			} else if c == '"' {
				in = false
			}
		case c == '"':
			in = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			return false
		}
	}
	return json.Valid(msg)
}
