package politeness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := epoch
	tests := []struct {
		value  string
		want   time.Duration
		wantOK bool
	}{
		{"0", 0, true},
		{"120", 120 * time.Second, true},
		{" 7 ", 7 * time.Second, true},
		{"007", 7 * time.Second, true},
		{"9223372036", 9223372036 * time.Second, true},
		{"9223372037", math.MaxInt64, true},
		{"99999999999999999999999999", math.MaxInt64, true},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{"Saturday, 01-Mar-25 12:05:00 GMT", 5 * time.Minute, true}, // RFC 850
		{"Sat Mar  1 12:00:30 2025", 30 * time.Second, true},        // ANSI C
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},      // past
		{now.Format(http.TimeFormat), 0, true},
		{"", 0, false},
		{"   ", 0, false},
		{"soon", 0, false},
		{"-5", 0, false},
		{"+5", 0, false},
		{"1.5", 0, false},
		{"1e3", 0, false},
		{"5 s", 0, false},
		{"\u20045", 0, false}, // a Unicode space is not HTTP whitespace
		{"\t5\t", 5 * time.Second, true},
		{"Sat, 01 Mar 2025 12:00:30", 0, false}, // no zone
		{"2025-03-01T12:00:30Z", 0, false},      // not an HTTP-date
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			got, ok := ParseRetryAfter(tt.value, now)
			if got != tt.want || ok != tt.wantOK {
				t.Fatalf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tt.value, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"0", "120", " 7 ", "99999999999999999999", "-1", "1.5",
		"Sat, 01 Mar 2025 12:01:30 GMT", "Saturday, 01-Mar-25 12:05:00 GMT",
		"Sat Mar  1 12:00:30 2025", "Mon, 01 Jan 0001 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := ParseRetryAfter(s, epoch)
		if d < 0 {
			t.Fatalf("ParseRetryAfter(%q) = %v; negative", s, d)
		}
		if !ok && d != 0 {
			t.Fatalf("ParseRetryAfter(%q) = %v, false; want 0 when not ok", s, d)
		}
		if v := strings.Trim(s, " \t"); isDigits(v) && len(v) < 10 {
			n, _ := strconv.ParseInt(v, 10, 64)
			if !ok || d != time.Duration(n)*time.Second {
				t.Fatalf("ParseRetryAfter(%q) = %v, %v; want %ds", s, d, ok, n)
			}
		}
	})
}

// TestRetryAfterPauses checks what a response does to the authority's next
// start, with an interval (1 s) and backoff (3 s) that tell them apart.
func TestRetryAfterPauses(t *testing.T) {
	const backoff = 3 * time.Second
	date := func(d time.Duration) string { return epoch.Add(d).Format(http.TimeFormat) }
	tests := []struct {
		name   string
		fb     Feedback
		want   time.Duration // next start, after the release
		capped bool
	}{
		{"429 seconds", Feedback{Status: 429, RetryAfter: "120"}, 120 * time.Second, false},
		{"503 seconds", Feedback{Status: 503, RetryAfter: "5"}, 5 * time.Second, false},
		{"429 future date", Feedback{Status: 429, RetryAfter: date(90 * time.Second)}, 90 * time.Second, false},
		{"503 past date", Feedback{Status: 503, RetryAfter: date(-time.Hour)}, time.Second, false},
		{"429 zero", Feedback{Status: 429, RetryAfter: "0"}, time.Second, false},
		{"short Retry-After keeps the interval", Feedback{Status: 429, RetryAfter: date(0)}, time.Second, false},
		{"429 garbage backs off", Feedback{Status: 429, RetryAfter: "soon"}, backoff, false},
		{"429 negative backs off", Feedback{Status: 429, RetryAfter: "-5"}, backoff, false},
		{"503 without header backs off", Feedback{Status: 503}, backoff, false},
		{"capped at the pause cap", Feedback{Status: 429, RetryAfter: "3600"}, 10 * time.Minute, true},
		{"huge seconds capped", Feedback{Status: 503, RetryAfter: "99999999999999999999"}, 10 * time.Minute, true},
		{"200 ignores Retry-After", Feedback{Status: 200, RetryAfter: "120"}, time.Second, false},
		{"301 ignores Retry-After", Feedback{Status: 301, RetryAfter: "120"}, time.Second, false},
		{"500 ignores Retry-After, backs off", Feedback{Status: 500, RetryAfter: "120"}, backoff, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			p, clk := newTestPacer(t, WithBackoff(backoff, time.Minute),
				WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
			mustAcquire(t, p, hostA)
			p.Release(context.Background(), hostA, tt.fb)
			want := epoch.Add(tt.want)
			if r := p.ReadyAt(hostA); !r.Equal(want) {
				t.Fatalf("ReadyAt = +%v; want +%v", r.Sub(epoch), tt.want)
			}
			mustRefuse(t, p, hostA, want)
			if got := strings.Contains(logs.String(), "pause cap"); got != tt.capped {
				t.Fatalf("capped logged = %v; want %v; log: %q", got, tt.capped, logs.String())
			}
			clk.AdvanceTo(want)
			mustAcquire(t, p, hostA)
		})
	}
}

func TestBackoffGrowsAndResets(t *testing.T) {
	p, clk := newTestPacer(t, WithFloor(100*time.Millisecond), WithBackoff(time.Second, 8*time.Second))
	fail := []Feedback{
		{Status: 500},
		{Status: 502},
		{Err: errors.New("connection refused")},
		{Status: 429},
		{Err: context.DeadlineExceeded},
	}
	wants := []time.Duration{1, 2, 4, 8, 8}
	// step releases with fb and checks the backoff state and the pause
	// (0: the interval only).
	step := func(fb Feedback, want time.Duration, failures int, pause time.Duration) {
		t.Helper()
		mustAcquire(t, p, hostA)
		released := clk.Now()
		p.Release(context.Background(), hostA, fb)
		s := p.State(hostA)
		if s.Backoff != want || s.Failures != failures {
			t.Fatalf("after %+v: Backoff %v, Failures %d; want %v, %d", fb, s.Backoff, s.Failures, want, failures)
		}
		next := released.Add(max(pause, 100*time.Millisecond))
		if r := p.ReadyAt(hostA); !r.Equal(next) {
			t.Fatalf("after %+v: ReadyAt +%v; want +%v", fb, r.Sub(released), next.Sub(released))
		}
		clk.AdvanceTo(next)
	}
	for i, fb := range fail {
		step(fb, wants[i]*time.Second, i+1, wants[i]*time.Second)
	}
	// Neither a cancelled request nor a release without an answer says
	// anything about the server: the backoff stays, with no new pause.
	step(Feedback{Err: fmt.Errorf("fetch: %w", context.Canceled)}, 8*time.Second, 5, 0)
	step(Feedback{}, 8*time.Second, 5, 0)
	// A 404 is the server answering: success.
	step(Feedback{Status: 404}, 0, 0, 0)
	step(Feedback{Status: 503}, time.Second, 1, time.Second)
	step(Feedback{Status: 200}, 0, 0, 0)
}

func TestBackoffOff(t *testing.T) {
	p, clk := newTestPacer(t, WithBackoff(0, 0))
	mustAcquire(t, p, hostA)
	p.Release(context.Background(), hostA, Feedback{Status: 500})
	if r := p.ReadyAt(hostA); !r.Equal(clk.Now().Add(time.Second)) {
		t.Fatalf("ReadyAt = %v; want the interval only", r.Sub(clk.Now()))
	}
}

// A pause is never shortened: a short Retry-After does not cut a backoff.
func TestPauseNeverShortened(t *testing.T) {
	ctx := context.Background()
	// Two requests in flight, so that three answers arrive in a row: no
	// interval, or the second could not have started.
	p, clk := newTestPacer(t, WithFloor(0), WithConcurrency(2), WithBackoff(time.Minute, time.Hour))
	mustAcquire(t, p, hostA)
	clk.Advance(time.Second)
	mustAcquire(t, p, hostA)
	p.Release(ctx, hostA, Feedback{Status: 500})
	until := clk.Now().Add(time.Minute)
	p.Release(ctx, hostA, Feedback{Status: 429, RetryAfter: "1"})
	if s := p.State(hostA); !s.PausedUntil.Equal(until) {
		t.Fatalf("PausedUntil = %v; want %v", s.PausedUntil, until)
	}
	p.Release(ctx, hostA, Feedback{Status: 200}) // success resets the step, not the pause
	if s := p.State(hostA); !s.PausedUntil.Equal(until) || s.Backoff != 0 {
		t.Fatalf("State = %+v", s)
	}
}

func TestBackoffFor(t *testing.T) {
	c := Settings{BackoffBase: time.Second, BackoffMax: 5 * time.Minute}
	for n, want := range map[int]time.Duration{
		1: time.Second, 2: 2 * time.Second, 9: 256 * time.Second, 10: 5 * time.Minute,
		1000: 5 * time.Minute, math.MaxInt32: 5 * time.Minute,
	} {
		if got := c.backoffFor(n); got != want {
			t.Errorf("backoffFor(%d) = %v; want %v", n, got, want)
		}
	}
	huge := Settings{BackoffBase: time.Duration(math.MaxInt64 / 3), BackoffMax: math.MaxInt64}
	if got := huge.backoffFor(5); got != math.MaxInt64 {
		t.Errorf("backoffFor near overflow = %v", got)
	}
}
