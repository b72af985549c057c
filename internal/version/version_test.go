package version

import "testing"

// A stamped version wins; a test binary has no module version, so
// without one it is "dev".
func TestOf(t *testing.T) {
	if got := Of(); got != "dev" {
		t.Errorf("unstamped: %q, want dev", got)
	}
	defer func(old string) { stamped = old }(stamped)
	stamped = "v1.2.3"
	if got := Of(); got != "v1.2.3" {
		t.Errorf("stamped: %q", got)
	}
}
