package docexamples

import "testing"

// A port a document names is replaced wherever it is named on loopback:
// 127.0.0.1, localhost and [::1], and after --port; nowhere else.
func TestReplacePort(t *testing.T) {
	got := replacePort("127.0.0.1:8094, [::1]:8094, localhost:8094, --port 8094, example.com:8094, 127.0.0.1:80940", "8094", "19537")
	want := "127.0.0.1:19537, [::1]:19537, localhost:19537, --port 19537, example.com:8094, 127.0.0.1:80940"
	if got != want {
		t.Errorf("replacePort = %q; want %q", got, want)
	}
}
