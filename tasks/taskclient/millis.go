package taskclient

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/askback/askback/internal/text/runecut"
)

// millisField names the member of a task a [millis] is read from.
type millisField interface{ name() string }

type (
	fieldTTL            struct{}
	fieldPollInterval   struct{}
	fieldTTLMs          struct{}
	fieldPollIntervalMs struct{}
)

func (fieldTTL) name() string            { return "ttl" }
func (fieldPollInterval) name() string   { return "pollInterval" }
func (fieldTTLMs) name() string          { return "ttlMs" }
func (fieldPollIntervalMs) name() string { return "pollIntervalMs" }

// millis is a task's time in milliseconds as a server sends it (ttl and
// pollInterval on protocol 2025-11-25, ttlMs and pollIntervalMs in the
// tasks extension): a whole number. Anything else (1500.5, "1500") is
// refused in words that name the member and what the server sent, not in
// the decoder's.
type millis[F millisField] int64

// maxShownValue bounds what an error shows of a value the server sent.
const maxShownValue = 64

// UnmarshalJSON implements json.Unmarshaler.
func (m *millis[F]) UnmarshalJSON(b []byte) error {
	var n int64
	if bytes.ContainsAny(b, ".eE") || json.Unmarshal(b, &n) != nil {
		var f F
		return fmt.Errorf("the task's %s is %s: not a whole number of milliseconds", f.name(), runecut.Clip(string(b), maxShownValue))
	}
	*m = millis[F](n)
	return nil
}

// ptr is m as a *int64 (nil for nil).
func ptr[F millisField](m *millis[F]) *int64 {
	if m == nil {
		return nil
	}
	n := int64(*m)
	return &n
}
