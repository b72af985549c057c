package agent

import (
	"bytes"
	"strings"
	"testing"
	"unsafe"
)

// Kept messages are the messages, packed one after the other into a few
// shared blocks; an append to one cannot write over the next.
func TestKeep(t *testing.T) {
	var k keeper
	var in, kept []Message
	size := 0
	for i := range 300 {
		m := Message(`{"role":"tool","content":"` + strings.Repeat("x", 97*(i%90)) + `"}`)
		in = append(in, m)
		kept = append(kept, k.keep(m))
		size += len(m)
	}
	starts := 1 // messages that begin a block
	for i, m := range kept {
		if !bytes.Equal(m, in[i]) || &m[0] == &in[i][0] || cap(m) != len(m) {
			t.Fatalf("message %d: kept as %.40q, copied %v, capacity %d for %d bytes", i, m, &m[0] != &in[i][0], cap(m), len(m))
		}
		if i > 0 && uintptr(unsafe.Pointer(&kept[i-1][0]))+uintptr(len(kept[i-1])) != uintptr(unsafe.Pointer(&m[0])) {
			starts++
		}
	}
	// 1.3 MB in blocks of 16, 32, 64, 128, then 256 KiB.
	if want := 4 + size/keepBlockMax + 1; starts > want {
		t.Errorf("%d messages (%d bytes) in %d blocks, want at most %d", len(kept), size, starts, want)
	}
	_ = append(kept[10], `,"more"}`...)
	if !bytes.Equal(kept[11], in[11]) {
		t.Errorf("an append to a kept message wrote over the next one: %.40q", kept[11])
	}

	big := Message(`"` + strings.Repeat("y", keepMax) + `"`)
	if got := k.keep(big); &got[0] != &big[0] {
		t.Errorf("a message over %d bytes was copied", keepMax)
	}
	if got := k.keep(Message{}); len(got) != 0 {
		t.Errorf("an empty message kept as %q", got)
	}
}
