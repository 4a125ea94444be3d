package reqstate

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/askback/askback/internal/encoding/jsonscan"
)

// appendCanonical returns the canonical form of in appended to dst, written
// by jsonscan's scanner (jsonscan.Canonical) in the pass that checks it;
// empty input and null give {}. Keys that repeat or fold alike are an error
// wrapping ErrAmbiguousArguments.
func appendCanonical(dst, in []byte) ([]byte, error) {
	if len(bytes.TrimSpace(in)) == 0 {
		return append(dst, "{}"...), nil // empty, as any white space
	}
	out, err := jsonscan.Canonical(dst, in)
	if errors.Is(err, jsonscan.ErrAmbiguous) {
		what := strings.TrimPrefix(err.Error(), jsonscan.ErrAmbiguous.Error()+": ")
		return nil, fmt.Errorf("%w: %s", ErrAmbiguousArguments, what)
	}
	if err != nil {
		return nil, err
	}
	if string(out[len(dst):]) == "null" {
		return append(out[:len(dst)], "{}"...), nil
	}
	return out, nil
}

// maxPooledBytes bounds the buffer kept for the next digest: arguments
// far larger than usual leave theirs to the garbage collector.
const maxPooledBytes = 16 << 10
