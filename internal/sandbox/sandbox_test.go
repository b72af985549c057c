package sandbox

import (
	"strings"
	"testing"
)

func TestParseMode(t *testing.T) {
	for _, m := range Modes {
		if got, err := ParseMode(string(m)); err != nil || got != m {
			t.Errorf("ParseMode(%q) = %q, %v", m, got, err)
		}
	}
	if _, err := ParseMode("readonly"); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("ParseMode(readonly): %v", err)
	}
}

// A block widens or narrows the run's mode; off drops the rest.
func TestBlockPolicy(t *testing.T) {
	var nilBlock *Block
	if p := nilBlock.Policy(ReadOnly); p.Mode != ReadOnly || p.Network.Any {
		t.Errorf("no block: %+v", p)
	}
	if p := nilBlock.Policy(""); p.Mode != Off {
		t.Errorf("no mode: %+v", p)
	}
	b := &Block{Network: &Network{Any: true}, Write: []string{"/w"}}
	if p := b.Policy(ReadOnly); p.Mode != ReadOnly || !p.Network.Any || p.Write[0] != "/w" {
		t.Errorf("network block: %+v", p)
	}
	if p := (&Block{Mode: WorkspaceWrite}).Policy(ReadOnly); p.Mode != WorkspaceWrite {
		t.Errorf("mode block: %+v", p)
	}
	if p := (&Block{Mode: Off, Write: []string{"/w"}}).Policy(ReadOnly); p.Mode != Off || p.Write != nil {
		t.Errorf("off block: %+v", p)
	}
	if p := (&Block{Mode: ReadOnly}).Policy(Off); p.Mode != ReadOnly {
		t.Errorf("a block narrows off: %+v", p)
	}
}

// What is enforced, by ABI, as tools show and the transcript say it.
func TestCheck(t *testing.T) {
	ro := Policy{Mode: ReadOnly}
	net := Policy{Mode: ReadOnly, Network: Network{Any: true}}
	for _, tc := range []struct {
		p    Policy
		abi  int
		want string
		full bool
	}{
		{Policy{Mode: Off}, 0, "off", true},
		{ro, 0, "not enforced: kernel has no Landlock", false},
		{ro, 7, "landlock abi 7: fs+tcp", true},
		{net, 7, "landlock abi 7: fs", true},
		{ro, 4, "landlock abi 4: fs+tcp", true},
		{ro, 3, "landlock abi 3: fs; tcp not restricted (needs landlock abi 4)", false},
		{net, 3, "landlock abi 3: fs", true},
		{net, 2, "landlock abi 2: fs; truncate(2) is not restricted (needs landlock abi 3)", false},
	} {
		e := check(tc.p, tc.abi)
		if e.String() != tc.want || e.Full != tc.full {
			t.Errorf("check(%+v, %d) = %q full=%v, want %q full=%v", tc.p, tc.abi, e, e.Full, tc.want, tc.full)
		}
	}
	if got := check(ro, 7).Describe(); got != "read-only (landlock abi 7: fs+tcp)" {
		t.Errorf("Describe: %q", got)
	}
}

// A requiring run refuses what is not enforced in full, saying what.
func TestRefusal(t *testing.T) {
	s := Settings{Required: true}
	if r := s.Refusal(check(Policy{Mode: ReadOnly}, 0)); !strings.Contains(r, "kernel has no Landlock") {
		t.Errorf("no landlock: %q", r)
	}
	if r := s.Refusal(check(Policy{Mode: ReadOnly}, 7)); r != "" {
		t.Errorf("abi 7: %q", r)
	}
	if r := (Settings{}).Refusal(check(Policy{Mode: ReadOnly}, 0)); r != "" {
		t.Errorf("not required: %q", r)
	}
}

func TestSpecRoundTrip(t *testing.T) {
	s := &spec{abi: 7, mode: WorkspaceWrite, dir: "/w=x", tmp: "/t", write: []string{"/a"}, read: []string{"/r"}, net: Network{Ports: []uint16{80, 443}}, path: "/bin/sh", argv: []string{"sh", "--", "-c"}}
	got, err := parseSpec(s.args())
	if err != nil {
		t.Fatal(err)
	}
	if got.dir != s.dir || got.mode != s.mode || got.abi != 7 || got.readAll || len(got.net.Ports) != 2 || got.net.Ports[1] != 443 || got.path != "/bin/sh" || strings.Join(got.argv, " ") != "sh -- -c" {
		t.Errorf("round trip: %+v", got)
	}
	if _, err := parseSpec([]string{"abi=7", "--"}); err == nil {
		t.Error("no program: no error")
	}
}
