package durable_test

import (
	"path/filepath"
	"testing"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/durable"
	"github.com/heedcrawl/heed/frontier/frontiertest"
)

func TestConformance(t *testing.T) {
	frontiertest.Run(t, func(t *testing.T, opts ...frontier.Option) frontier.Frontier {
		f, err := durable.Open(filepath.Join(t.TempDir(), "state"), opts...)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		return f
	})
}
