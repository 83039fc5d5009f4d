package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// sizeValue is a flag holding a number of bytes, written as a count with
// an optional unit: 1048576, 512KiB, 10MiB, 1GiB (powers of 1024) or
// 500kB, 10MB, 1GB (powers of 1000); B alone is bytes. Units are read
// case-insensitively, a space may separate them from the count, and a
// decimal count (1.5MiB) is rounded down to whole bytes.
type sizeValue struct{ n int64 }

// sizeUnits are the units a size may carry, longest first so that "KiB"
// is not read as "B".
var sizeUnits = []struct {
	name string
	mult float64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30},
	{"b", 1},
}

// parseSize reads a size (see sizeValue).
func parseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := 1.0
	for _, u := range sizeUnits {
		if strings.HasSuffix(t, u.name) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.name)), u.mult
			break
		}
	}
	if t == "" {
		return 0, fmt.Errorf("%q: want a size such as 1048576, 512KiB or 10MiB", s)
	}
	if n, err := strconv.ParseInt(t, 10, 64); err == nil && mult == 1 {
		if n < 0 {
			return 0, fmt.Errorf("%q: a size cannot be negative", s)
		}
		return n, nil
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || strings.ContainsAny(t, "eExXpP_") {
		return 0, fmt.Errorf("%q: want a size such as 1048576, 512KiB or 10MiB", s)
	}
	if f < 0 {
		return 0, fmt.Errorf("%q: a size cannot be negative", s)
	}
	v := f * mult
	if v >= math.MaxInt64 {
		return 0, fmt.Errorf("%q: too large", s)
	}
	return int64(v), nil
}

// formatSize writes n the way parseSize reads it, in the largest binary
// unit that divides it.
func formatSize(n int64) string {
	for _, u := range []struct {
		name string
		mult int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.mult && n%u.mult == 0 {
			return fmt.Sprintf("%d%s", n/u.mult, u.name)
		}
	}
	return strconv.FormatInt(n, 10)
}

func (v *sizeValue) String() string { return formatSize(v.n) }
func (v *sizeValue) Type() string   { return "size" }
func (v *sizeValue) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	v.n = n
	return nil
}
