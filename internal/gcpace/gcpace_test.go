package gcpace

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int
	}{
		{0, 100},
		{1 << 20, 100},
		{Headroom, 100},
		{8 << 20, 50},
		{10 << 20, 40},
		{16 << 20, 25},
		{64 << 20, 25},
		{4 << 30, 25},
	} {
		if got := Percent(tc.live); got != tc.want {
			t.Errorf("Percent(%d) = %d, want %d", tc.live, got, tc.want)
		}
	}
}

// currentPercent reads the collector's percent without setting it: a
// set-and-restore could put back, over the pacer's, the percent the pacer
// had just replaced, and the pacer sets it only when it changes.
func currentPercent() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}

func TestStartFollowsTheLiveHeap(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(currentPercent())
	Start()
	// 40 MB held: the percent comes down to its floor after a collection.
	held := make([]byte, 40<<20)
	waitPercent(t, MinPercent)
	runtime.KeepAlive(held)
	// Let go, the heap is small again and gets the default back.
	waitPercent(t, 100)
}

// waitPercent collects until the pacer has set want; the pacer runs after
// a collection, on a goroutine of its own.
func waitPercent(t *testing.T, want int) {
	t.Helper()
	for range 500 {
		runtime.GC()
		if currentPercent() == want {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("GOGC percent is %d, want %d", currentPercent(), want)
}
