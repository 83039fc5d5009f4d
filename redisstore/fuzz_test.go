package redisstore

import "testing"

// FuzzDecodeRobots feeds stored robots.txt records to the decoder.
func FuzzDecodeRobots(f *testing.F) {
	f.Add(`{"url":"http://a/robots.txt","fetched_at":"2025-03-01T12:00:00Z","state":"available","status":200}`, "User-agent: *\n")
	f.Add(`{"url":"x","fetched_at":"bad"}`, "")
	f.Add(`null`, "")
	f.Add(`{"failures":-1,"retry_at":"2025-03-01T12:00:00Z"}`, "\x00")
	f.Fuzz(func(t *testing.T, meta, body string) {
		rec, err := decodeRobots(meta, body)
		if err != nil {
			return
		}
		if len(rec.Body) != len(body) || len(rec.Body) > MaxRobotsBody+1 {
			t.Fatalf("body of %d bytes read as %d", len(body), len(rec.Body))
		}
	})
}
