package jsonesc

import (
	"strconv"
	"strings"
	"testing"
)

func TestHex4(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want rune
	}{
		{"0041", 'A'}, {"00e9", 'é'}, {"00E9", 'é'}, {"d83dde00", 0xd83d}, {"FFFF", 0xffff},
		{"004", -1}, {"", -1}, {"00g1", -1}, {"-041", -1}, {"0x41", -1},
	} {
		if got := Hex4([]byte(tt.in)); got != tt.want {
			t.Errorf("Hex4(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
	// Every four-digit value, in either case, against strconv.
	for v := range 0x10000 {
		lower := strconv.FormatInt(int64(v)+0x10000, 16)[1:]
		for _, s := range []string{lower, strings.ToUpper(lower)} {
			if got := Hex4([]byte(s)); got != rune(v) {
				t.Fatalf("Hex4(%q) = %d, want %d", s, got, v)
			}
		}
	}
}
