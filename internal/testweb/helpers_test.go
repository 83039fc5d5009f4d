package testweb

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// startScenario starts the scenario with a short slow delay and closes it
// when the test ends.
func startScenario(t *testing.T, opts ...Option) *Site {
	t.Helper()
	s, err := StartScenario(append([]Option{WithTimeout(300 * time.Millisecond)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// noFollow returns a client of s that reports redirects instead of
// following them.
func noFollow(s *Site) *http.Client {
	c := s.Client()
	c.Timeout = 10 * time.Second
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

type answer struct {
	status   int
	location string
	header   http.Header
	body     string
}

// get requests rawURL once with c and returns the answer.
func get(t *testing.T, c *http.Client, rawURL string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("User-Agent", "HeedBot/0.1 (testweb self-test)")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", rawURL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: body: %v", rawURL, err)
	}
	return answer{status: resp.StatusCode, location: resp.Header.Get("Location"), header: resp.Header, body: string(b)}
}

// follow requests rawURL without following redirects, then each Location
// in turn, and returns the redirect codes seen and the final answer. It
// gives up after limit redirects.
func follow(t *testing.T, s *Site, rawURL string, limit int) ([]int, answer) {
	t.Helper()
	c := noFollow(s)
	var codes []int
	cur := rawURL
	for range limit + 1 {
		a := get(t, c, cur)
		if a.location == "" {
			return codes, a
		}
		codes = append(codes, a.status)
		next, ok := parseCanonical(mustParse(cur), a.location)
		if !ok {
			t.Fatalf("%s: bad Location %q", cur, a.location)
		}
		cur = next
	}
	t.Fatalf("%s: more than %d redirects", rawURL, limit)
	return nil, answer{}
}

// robotsBody fetches the robots.txt body that applies to a host, following
// redirects as a crawler would.
func robotsBody(t *testing.T, s *Site, h *Host) string {
	t.Helper()
	_, a := follow(t, s, h.RobotsURL, 10)
	return a.body
}

// line returns the 1-based line n of body ("" when out of range).
func line(body string, n int) string {
	lines := strings.Split(body, "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return strings.TrimSuffix(lines[n-1], "\r")
}

// waitFor polls cond every 10 ms for up to d.
func waitFor(d time.Duration, cond func() bool) error {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return errors.New("timed out")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}
