package declare

import (
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/agentloop/agentloop/internal/sandbox"
)

func node(t *testing.T, src string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Content[0]
}

func TestDecode(t *testing.T) {
	b, probs := Decode(node(t, "mode: workspace-write\nwrite: [out, /abs/x, ~/cache, out]\nread: []\nnetwork: [443, 80]\n"), "/tools", "/home/me")
	if probs != nil {
		t.Fatal(probs)
	}
	want := &sandbox.Block{Mode: sandbox.WorkspaceWrite, Write: []string{"/tools/out", "/abs/x", "/home/me/cache"}, Read: []string{}, Network: &sandbox.Network{Ports: []uint16{443, 80}}}
	if !reflect.DeepEqual(b, want) {
		t.Errorf("got %+v\nwant %+v", b, want)
	}
	b, _ = Decode(node(t, "network: true\n"), "/tools", "")
	if !b.Network.Any || b.Read != nil {
		t.Errorf("network true: %+v", b)
	}
	b, _ = Decode(node(t, "network: false\n"), "/tools", "")
	if b.Network.Any || len(b.Network.Ports) != 0 {
		t.Errorf("network false: %+v", b.Network)
	}
}

func TestDecodeProblems(t *testing.T) {
	for src, want := range map[string]string{
		"mode: readonly\n":       `1: sandbox: mode: "readonly" is not a sandbox mode`,
		"network: yes please\n":  "1: sandbox: network: want true, false or a list of TCP ports",
		"network: [70000]\n":     `1: sandbox: network: "70000" is not a TCP port`,
		"writes: [x]\n":          "1: sandbox: unknown key 'writes' (did you mean 'write'?)",
		"write: x\n":             "1: sandbox: write: want a list of paths",
		"read: [~bob/x]\n":       "1: sandbox: read: ~bob/x: only ~ and ~/ are expanded",
		"[a]\n":                  "1: sandbox: want a mapping",
		"mode: off\nmode: off\n": "2: sandbox: 'mode' given twice",
	} {
		b, probs := Decode(node(t, src), "/tools", "/home/me")
		if b != nil || len(probs) != 1 {
			t.Errorf("%q: %+v %v", src, b, probs)
			continue
		}
		if got := strings.Join([]string{itoa(probs[0].Line), probs[0].Msg}, ": "); !strings.HasPrefix(got, want) {
			t.Errorf("%q:\n got %s\nwant %s", src, got, want)
		}
	}
}

func itoa(i int) string { return string(rune('0' + i)) }
