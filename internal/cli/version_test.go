package cli

import (
	"runtime/debug"
	"testing"
)

// Each way a binary is built names itself truthfully: the stamps of a
// release or a clone, else what Go recorded (go build in a clone, go
// install from the module proxy), else nothing claimed.
func TestBuildInfoSaysHowItWasBuilt(t *testing.T) {
	const commit = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"
	recorded := func(version string, settings ...debug.BuildSetting) *debug.BuildInfo {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/askback/askback", Version: version}, Settings: settings}
	}
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: commit}, {Key: "vcs.modified", Value: "true"}}
	cases := []struct {
		name            string
		version, commit string
		modified        bool
		bi              *debug.BuildInfo
		want            string
		wantBuild       string
	}{
		{name: "release", version: "v0.9.0", commit: commit, bi: recorded("(devel)"),
			want: "v0.9.0 (commit 1a2b3c4d5e6f)", wantBuild: BuildRelease},
		{name: "make build", commit: commit, bi: recorded("(devel)"),
			want: "devel (development build from a clone, commit 1a2b3c4d5e6f)", wantBuild: BuildClone},
		{name: "make build, changed", commit: commit, modified: true, bi: recorded("(devel)"),
			want: "devel (development build from a clone, commit 1a2b3c4d5e6f, with uncommitted changes)", wantBuild: BuildClone},
		{name: "go build with VCS stamping", bi: recorded("v0.0.0-20261201120000-1a2b3c4d5e6f+dirty", vcs...),
			want: "devel (development build from a clone, commit 1a2b3c4d5e6f, with uncommitted changes)", wantBuild: BuildClone},
		{name: "go build on a tag", bi: recorded("v0.9.0", debug.BuildSetting{Key: "vcs.revision", Value: commit}),
			want: "v0.9.0 (development build from a clone, commit 1a2b3c4d5e6f)", wantBuild: BuildClone},
		{name: "go install of a release", bi: recorded("v0.9.0"),
			want: "v0.9.0 (built by go install from the module github.com/askback/askback)", wantBuild: BuildGoInstall},
		{name: "go install of a commit", bi: recorded("v0.9.1-0.20261201120000-1a2b3c4d5e6f"),
			want: "v0.9.1-0.20261201120000-1a2b3c4d5e6f (built by go install from the module github.com/askback/askback, commit 1a2b3c4d5e6f)", wantBuild: BuildGoInstall},
		{name: "nothing recorded", bi: recorded("(devel)"),
			want: "devel (development build, commit unknown)", wantBuild: BuildUnknown},
		{name: "no build information", bi: nil,
			want: "devel (development build, commit unknown)", wantBuild: BuildUnknown},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := buildInfo(c.version, c.commit, c.modified, c.bi)
			if got := b.String(); got != c.want {
				t.Errorf("String() = %q, want %q", got, c.want)
			}
			if b.Build != c.wantBuild {
				t.Errorf("Build = %q, want %q", b.Build, c.wantBuild)
			}
		})
	}
}
