package cpuuse

import (
	"net"
	"os"
	"runtime"
	"strings"
	"testing"
)

func TestParseList(t *testing.T) {
	for in, want := range map[string][]int{"0": {0}, "0-3": {0, 1, 2, 3}, "0,2,4-5": {0, 2, 4, 5}, "7-7": {7}} {
		c, err := ParseList(in)
		if err != nil || len(c) != len(want) {
			t.Errorf("%q: %v, %v", in, c, err)
			continue
		}
		for _, n := range want {
			if !c[n] {
				t.Errorf("%q lacks %d", in, n)
			}
		}
	}
	for _, bad := range []string{"", "a", "3-1", "1-", "0-99999999", "1,,2"} {
		if _, err := ParseList(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestOverlaps(t *testing.T) {
	a, _ := ParseList("0-1")
	b, _ := ParseList("1-2")
	c, _ := ParseList("3")
	if !a.Overlaps(b) || a.Overlaps(c) {
		t.Errorf("0-1 and 1-2 share 1; 0-1 and 3 share nothing")
	}
}

func TestThisProcess(t *testing.T) {
	own, err := Allowed(0)
	if err != nil || len(own) == 0 {
		t.Fatalf("cores: %v, %v", own, err)
	}
	if _, err := Self(); err != nil {
		t.Fatal(err)
	}
	if _, err := Of(os.Getpid()); err != nil {
		t.Fatal(err)
	}
	if _, err := Of(-1); err == nil || !strings.Contains(err.Error(), "process -1") {
		t.Errorf("no such process: %v", err)
	}
}

// The process listening on a loopback port is found: here, this one.
func TestListener(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Listener does not look for the listening process on Windows")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	pid, ok := Listener(l.Addr().(*net.TCPAddr).Port)
	if !ok || pid != os.Getpid() {
		t.Errorf("listener of our own port: %d, %v; want %d", pid, ok, os.Getpid())
	}
	l.Close()
	if _, ok := Listener(l.Addr().(*net.TCPAddr).Port); ok {
		t.Error("a closed port has a listener")
	}
}
