// Package bytesize reads and writes byte counts as people write them:
// "512", "16KiB", "1MB", "1.5 MiB"; and shows sizes as people read them:
// "12.4 KB", "1.5 MiB".
package bytesize

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

var units = map[string]float64{
	"":    1,
	"b":   1,
	"kb":  1e3,
	"mb":  1e6,
	"gb":  1e9,
	"kib": 1 << 10,
	"mib": 1 << 20,
	"gib": 1 << 30,
}

// Parse reads a byte count such as "512", "16KiB", "1MB" or "1.5 MiB".
func Parse(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.TrimSpace(t[i:])
	}
	mult, ok := units[strings.ToLower(unit)]
	if num == "" || !ok {
		return 0, fmt.Errorf("%q is not a size; write a number of bytes with an optional unit: 512, 16KiB, 1MB", s)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a size; write a number of bytes with an optional unit: 512, 16KiB, 1MB", s)
	}
	n := f * mult
	// math.MaxInt64 is 2^63 as a float64, one more than the largest int64:
	// n must be below it, or the conversion wraps.
	if n >= math.MaxInt64 {
		return 0, fmt.Errorf("%q is too large", s)
	}
	if n != math.Trunc(n) {
		return 0, fmt.Errorf("%q is not a whole number of bytes", s)
	}
	return int64(n), nil
}

// Format renders n in the largest binary unit that divides it evenly.
func Format(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return strconv.FormatInt(n, 10)
}

// Decimal shows n bytes in decimal units, one decimal place: 512 B,
// 12.4 KB, 1.2 MB. The cleared-result placeholders a model reads use it.
func Decimal(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f KB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1000*1000))
}

// Binary shows n bytes in binary units, one decimal place: 512 B,
// 12.4 KiB, 1.2 MiB.
func Binary(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
