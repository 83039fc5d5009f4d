package redisfrontier_test

import (
	"testing"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/frontiertest"
	"github.com/heedcrawl/heed/frontier/redisfrontier"
)

// TestConformance runs heed's frontier conformance suite against the Redis
// frontier: one redis-server, a fresh key prefix per subtest. The suite's
// scheduling checks run on the real clock with waits of tens to hundreds of
// milliseconds; Redis TIME and the test's time.Now read the same clock.
func TestConformance(t *testing.T) {
	_, rdb := startRedis(t)
	frontiertest.Run(t, func(t *testing.T, opts ...frontier.Option) frontier.Frontier {
		s := newStore(t, rdb, newPrefix(t))
		return newFrontier(t, s, redisfrontier.WithFrontierOptions(opts...))
	})
}
