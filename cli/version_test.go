package cli

import (
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionText(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Path: heedModule, Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-12-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	got := versionText("heed", bi)
	for _, want := range []string{"heed v1.2.3 (module github.com/heedcrawl/heed)", "revision: abc123 (2026-12-01T10:00:00Z, modified)", "go: go1.26.1 " + runtime.GOOS} {
		if !strings.Contains(got, want) {
			t.Errorf("version lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "\nheed: ") {
		t.Errorf("heed's own version names heed as a dependency:\n%s", got)
	}
	// A spider program: its module, and heed's version among its deps.
	shop := &debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Path: "example.com/shop"},
		Deps: []*debug.Module{{Path: heedModule, Version: "v0.4.0"}}}
	got = versionText("shop", shop)
	for _, want := range []string{"shop (devel) (module example.com/shop)", "revision: unknown", "heed: v0.4.0"} {
		if !strings.Contains(got, want) {
			t.Errorf("version lacks %q:\n%s", want, got)
		}
	}
}

// TestVersionOfBuiltHeed: heed --version and heed version print the
// module, the Go version and, when the build carries it, the VCS revision
// of the checkout (git rev-parse HEAD).
func TestVersionOfBuiltHeed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds heed")
	}
	bin := buildHeed(t)
	flag, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	sub, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if string(flag) != string(sub) {
		t.Errorf("--version and version differ:\n%s\n%s", flag, sub)
	}
	out := string(flag)
	if !strings.HasPrefix(out, "heed ") || !strings.Contains(out, "(module github.com/heedcrawl/heed)") || !strings.Contains(out, "go: "+runtime.Version()) {
		t.Errorf("version:\n%s", out)
	}
	info, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	rev := ""
	for _, l := range strings.Split(string(info), "\n") {
		if f := strings.Fields(l); len(f) == 2 && strings.HasPrefix(f[1], "vcs.revision=") {
			rev = strings.TrimPrefix(f[1], "vcs.revision=")
		}
	}
	if rev == "" {
		// A git worktree or a source tarball: go build stamps no revision.
		if !strings.Contains(out, "revision: unknown") {
			t.Errorf("no revision in the build, but version says:\n%s", out)
		}
		return
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err == nil && strings.TrimSpace(string(head)) != rev {
		t.Errorf("build revision %s, HEAD %s", rev, head)
	}
	if !strings.Contains(out, "revision: "+rev) {
		t.Errorf("version does not give the revision %s:\n%s", rev, out)
	}
}
