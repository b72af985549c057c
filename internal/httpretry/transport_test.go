package httpretry

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
		{"", "Inf", math.MaxInt64, true},
		{"", "-1e400", 0, false}, // a negative wait, however large, asks for none
		{"1e30", "", math.MaxInt64, true},
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

// A wait is shown as people say it, whatever its size: a Retry-After of
// 1e400 seconds was shown as 2562047h47m16.854775807s.
func TestWaitText(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{45 * time.Second, "45 seconds"},
		{time.Minute, "1 minute"},
		{61 * time.Second, "1 minute 1 second"},
		{10*time.Minute + 30*time.Second, "10 minutes"},
		{90 * time.Minute, "1 hour 30 minutes"},
		{24 * time.Hour, "1 day"},
		{36 * time.Hour, "1 day 12 hours"},
		{400 * 24 * time.Hour, "1 year 35 days"},
		{math.MaxInt64, "292 years"},
	} {
		if got := waitText(tt.d); got != tt.want {
			t.Errorf("waitText(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// A Retry-After too long to wait for is said in those words, with what to
// do.
func TestTooLongHint(t *testing.T) {
	for _, tt := range []struct{ header, want string }{
		{"86400", "the server asks to retry in 1 day, longer than agentloop waits (1 minute); try again later"},
		{"1e400", "the server asks to retry in 292 years, longer than agentloop waits (1 minute); try again later"},
		{"60", ""},
	} {
		res := &http.Response{Header: http.Header{"Retry-After": {tt.header}}}
		if got := TooLongHint(res); got != tt.want {
			t.Errorf("Retry-After %s: %q, want %q", tt.header, got, tt.want)
		}
	}
}
