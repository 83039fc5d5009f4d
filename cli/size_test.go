package cli

import "testing"

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "1000": 1000, "512KiB": 512 << 10, "10MiB": 10 << 20, "10mib": 10 << 20, "1 GiB": 1 << 30,
		"500kB": 500_000, "10MB": 10_000_000, "1.5MiB": 3 << 19, "64k": 64 << 10, "2m": 2 << 20, "7B": 7,
	} {
		got, err := parseSize(in)
		if err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "MiB", "-1", "-1KiB", "ten", "1e3", "0x10", "1_000", "NaN", "Inf", "1 2", "99999999999TiB", "1..2MiB"} {
		if got, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) = %d, want an error", in, got)
		}
	}
	for _, n := range []int64{0, 1, 1000, 1 << 10, 10 << 20, 3 << 30, 1<<20 + 1} {
		if got, err := parseSize(formatSize(n)); err != nil || got != n {
			t.Errorf("formatSize(%d) = %q reads back as %d, %v", n, formatSize(n), got, err)
		}
	}
}

// FuzzParseSize: any text gives a size or an error, never a panic, and a
// size reads back as itself once formatted.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"10MiB", "1.5 kb", "-3", "0x1", "1e309", "9223372036854775807", "18446744073709551616b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseSize(s)
		if err != nil {
			return
		}
		if n < 0 {
			t.Fatalf("parseSize(%q) = %d < 0", s, n)
		}
		if back, err := parseSize(formatSize(n)); err != nil || back != n {
			t.Fatalf("parseSize(%q) = %d; formatted %q reads back as %d, %v", s, n, formatSize(n), back, err)
		}
	})
}
