package jobstate_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/jobstate"
)

// TestStateRefusesAnotherCommand: a paused job resumed with other seeds,
// another agent or other scope options is refused, with every difference
// listed, and nothing of the job is touched; the job's own command (or
// none of its seeds) resumes it.
func TestStateRefusesAnotherCommand(t *testing.T) {
	site := startGenerated(t, testweb.Generated{Hosts: 2, PagesPerHost: 40, PageBytes: 512, LinksPerPage: 3, Seed: 5})
	dir := t.TempDir()
	if first := stateRun(t, site, dir, 5); !first.Interrupted {
		t.Fatal("the first run was not paused")
	}
	before, err := jobstate.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	other := "http://127.0.0.1:1/elsewhere"
	for _, tc := range []struct {
		name  string
		agent string
		seeds []string
		opts  []crawler.Option
		want  []string
	}{
		{"other seed and agent", "OtherBot", []string{other}, nil, []string{"agent", "HeedBot", "OtherBot", "seeds", other}},
		{"other scope", "HeedBot", site.Seeds(), []crawler.Option{crawler.WithMaxDepth(2)}, []string{"scope", "max-depth"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := append(append(siteOptions(site), crawler.WithBackend(jobstate.Dir(dir))), tc.opts...)
			c, err := crawler.New(tc.agent, opts...)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, err = c.Run(ctx, tc.seeds...)
			var mm *jobstate.MismatchError
			if !errors.As(err, &mm) {
				t.Fatalf("Run = %v, want a *jobstate.MismatchError", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the refusal does not name %q: %v", w, err)
				}
			}
		})
	}
	after, err := jobstate.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if after.Job.Runs != before.Job.Runs || after.Job.Agent != "HeedBot" {
		t.Errorf("a refused run changed the job: runs %d → %d, agent %q", before.Job.Runs, after.Job.Runs, after.Job.Agent)
	}
	if sum := stateRun(t, site, dir, 0); sum.Interrupted {
		t.Error("the job's own command did not resume it to the end")
	}
}
