package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
)

// The agentloop programs built for this run, by their link flags, in a
// folder TestMain makes and removes. Most tests need none: they run this
// test binary as agentloop. A test that needs the program as main.go makes
// it (the order its packages initialise in, what the linker stamps) gets
// one from builtAgentloop.
var (
	buildDir string
	builds   sync.Map // link flags → *build
)

type build struct {
	once sync.Once
	path string
	err  error
}

// builtAgentloop returns agentloop built from the module's root with the
// link flags given, once per test run whichever tests ask. It is built with
// the settings this test binary was built with (the race detector, tags,
// -trimpath, cgo, the target), so every package comes from the build cache
// go test filled: only main is compiled and the program linked. A build as
// make build makes it (CGO_ENABLED=0, -trimpath) would compile every
// package, the SDKs included, a second time: minutes on a cold machine.
func builtAgentloop(t *testing.T, ldflags string) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build agentloop with")
	}
	v, _ := builds.LoadOrStore(ldflags, &build{})
	b := v.(*build)
	b.once.Do(func() {
		dir, err := os.MkdirTemp(buildDir, "agentloop")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, "agentloop")
		flags, env := thisBuild()
		args := append([]string{"build", "-x", "-o", b.path}, flags...)
		if ldflags != "" {
			args = append(args, "-ldflags", ldflags)
		}
		c := exec.Command(goCmd, append(args, ".")...)
		c.Env = append(os.Environ(), env...)
		out, err := c.CombinedOutput()
		switch again := compiledPackages(string(out)); {
		case err != nil:
			b.err = fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, lastLines(string(out), 40))
		case len(again) > 0:
			b.err = fmt.Errorf("go %s compiled %d package(s) the test's own build had compiled: %s",
				strings.Join(args, " "), len(again), strings.Join(again[:min(len(again), 10)], " "))
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// thisBuild gives the go command's flags and environment that build
// packages as this test binary's were built, from its build information.
func thisBuild() (flags, env []string) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return nil, nil
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "-race", "-msan", "-asan", "-trimpath":
			if s.Value == "true" {
				flags = append(flags, s.Key)
			}
		case "-tags", "-gcflags", "-asmflags":
			flags = append(flags, s.Key+"="+s.Value)
		case "CGO_ENABLED", "CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_CXXFLAGS", "CGO_LDFLAGS", "GOARCH", "GOOS",
			"GOAMD64", "GOARM", "GOARM64", "GO386", "GOMIPS", "GOMIPS64", "GOPPC64", "GORISCV64", "GOWASM", "GOEXPERIMENT":
			env = append(env, s.Key+"="+s.Value)
		}
	}
	return flags, env
}

// compiledPackages are the packages, but main, a go build -x run compiled.
func compiledPackages(trace string) []string {
	var pkgs []string
	for _, m := range regexp.MustCompile(`(?m)/compile .* -p (\S+) `).FindAllStringSubmatch(trace, -1) {
		if m[1] != "main" {
			pkgs = append(pkgs, m[1])
		}
	}
	return pkgs
}

// lastLines is the end of s, n lines at most.
func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
