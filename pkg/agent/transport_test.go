package agent

import (
	"math"
	"net/http"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	future := time.Now().Add(2 * time.Hour).UTC().Format(http.TimeFormat)
	tests := []struct {
		ms, s string
		want  time.Duration
		ok    bool
	}{
		{"", "", 0, false},
		{"250", "", 250 * time.Millisecond, true},
		{"250", "9", 250 * time.Millisecond, true}, // -ms first, as the SDKs read them
		{"", "2", 2 * time.Second, true},
		{"", "0.5", 500 * time.Millisecond, true},
		{"", "-1", 0, false},
		{"", "NaN", 0, false},
		{"", "soon", 0, false},
		{"", "1e400", math.MaxInt64, true},
		{"", "1e300", math.MaxInt64, true},
		{"nonsense", "3", 3 * time.Second, true},
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.ms != "" {
			h.Set("Retry-After-Ms", tt.ms)
		}
		if tt.s != "" {
			h.Set("Retry-After", tt.s)
		}
		got, ok := retryAfter(h)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Retry-After-Ms %q, Retry-After %q: %v %v, want %v %v", tt.ms, tt.s, got, ok, tt.want, tt.ok)
		}
	}
	h := http.Header{"Retry-After": {future}}
	if got, ok := retryAfter(h); !ok || got < 119*time.Minute || got > 2*time.Hour {
		t.Errorf("an HTTP date two hours ahead: %v %v", got, ok)
	}
}
