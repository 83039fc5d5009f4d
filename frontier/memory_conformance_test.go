package frontier_test

import (
	"testing"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/frontiertest"
)

func TestMemoryConformance(t *testing.T) {
	frontiertest.Run(t, func(t *testing.T, opts ...frontier.Option) frontier.Frontier {
		return frontier.NewMemory(opts...)
	})
}
