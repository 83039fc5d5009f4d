package stats_test

import (
	"context"
	"testing"

	"github.com/heedcrawl/heed/stats"
)

func TestStatusClass(t *testing.T) {
	for _, tc := range []struct {
		status int
		err    error
		want   string
	}{
		{200, nil, "2xx"}, {204, nil, "2xx"}, {301, nil, "3xx"}, {404, nil, "4xx"}, {429, nil, "4xx"},
		{503, nil, "5xx"}, {0, nil, "error"}, {200, context.DeadlineExceeded, "error"}, {999, nil, "error"}, {101, nil, "1xx"},
	} {
		if got := stats.StatusClass(tc.status, tc.err); got != tc.want {
			t.Errorf("StatusClass(%d, %v) = %s, want %s", tc.status, tc.err, got, tc.want)
		}
	}
}
