package bytesize

import "testing"

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  bool
	}{
		{"512", 512, false},
		{"16KiB", 16 << 10, false},
		{"16kib", 16 << 10, false},
		{"1MB", 1_000_000, false},
		{"1.5 MiB", 3 << 19, false},
		{"2GiB", 2 << 30, false},
		{"10B", 10, false},
		{"", 0, true},
		{"KiB", 0, true},
		{"1.5", 0, true},
		{"12 parsecs", 0, true},
		{"1e3", 0, true},
		{"8589934591GiB", 8589934591 << 30, false},
		{"8589934592GiB", 0, true}, // 2^63
		{"9223372036854775808", 0, true},
		{"99999999999999999999GB", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			if (err != nil) != tt.err || got != tt.want {
				t.Errorf("Parse(%q) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.err)
			}
		})
	}
}

func TestShow(t *testing.T) {
	for _, tc := range []struct {
		n               int
		decimal, binary string
	}{
		{0, "0 B", "0 B"},
		{999, "999 B", "999 B"},
		{1000, "1.0 KB", "1000 B"},
		{1024, "1.0 KB", "1.0 KiB"},
		{12_400, "12.4 KB", "12.1 KiB"},
		{1_500_000, "1.5 MB", "1.4 MiB"},
		{1 << 20, "1.0 MB", "1.0 MiB"},
	} {
		if got := Decimal(tc.n); got != tc.decimal {
			t.Errorf("Decimal(%d) = %q, want %q", tc.n, got, tc.decimal)
		}
		if got := Binary(tc.n); got != tc.binary {
			t.Errorf("Binary(%d) = %q, want %q", tc.n, got, tc.binary)
		}
	}
}
