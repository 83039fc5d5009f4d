package jobstate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/heedcrawl/heed/backend"
)

// MismatchError refuses a run whose command is not the job's: another
// agent, other seeds, or other scope options than the ones the state was
// started with. Resuming it would skip-log the job's queued URLs as
// offsite, or crawl them as someone else; the state is left as it was.
type MismatchError struct {
	// Dir is the state's directory ("" for a State that is not a
	// DirState).
	Dir string
	// Diffs lists each difference: what the state holds, what the run
	// asked for.
	Diffs []string
}

func (e *MismatchError) Error() string {
	where := "the state"
	if e.Dir != "" {
		where = "the state " + e.Dir
	}
	return fmt.Sprintf("jobstate: %s holds another job than this command's; run it with its own command, or give this one another state directory: %s",
		where, strings.Join(e.Diffs, "; "))
}

// checkSameJob compares a run with the job the state holds (nothing to
// compare for a new state). A run that gives no seeds resumes the job
// with its own; a state written before scope was recorded has no scope to
// compare.
func checkSameJob(dir string, job *Job, j *backend.Job) error {
	if job.Runs == 0 {
		return nil
	}
	var diffs []string
	if job.Agent != "" && job.Agent != j.Agent {
		diffs = append(diffs, fmt.Sprintf("agent: the job's is %q, this run's %q", job.Agent, j.Agent))
	}
	if len(j.Seeds) > 0 && len(job.Seeds) > 0 {
		if gone, added := setDiff(job.Seeds, j.Seeds); len(gone)+len(added) > 0 {
			d := "seeds:"
			if len(gone) > 0 {
				d += " the job's " + strings.Join(gone, " ") + " not given"
			}
			if len(added) > 0 {
				if len(gone) > 0 {
					d += ","
				}
				d += " " + strings.Join(added, " ") + " not the job's"
			}
			diffs = append(diffs, d)
		}
	}
	if job.Scope != nil {
		for i := 0; i < max(len(job.Scope), len(j.Scope)); i++ {
			was, now := at(job.Scope, i), at(j.Scope, i)
			if was != now {
				diffs = append(diffs, fmt.Sprintf("scope: the job's %q, this run's %q", was, now))
			}
		}
	}
	if len(diffs) > 0 {
		return &MismatchError{Dir: dir, Diffs: diffs}
	}
	return nil
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return ""
}

// setDiff returns the members of a missing from b and of b missing from
// a, each sorted, spaces around them ignored.
func setDiff(a, b []string) (onlyA, onlyB []string) {
	norm := func(s []string) []string {
		out := make([]string, 0, len(s))
		for _, v := range s {
			out = append(out, strings.TrimSpace(v))
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	na, nb := norm(a), norm(b)
	for _, v := range na {
		if _, ok := slices.BinarySearch(nb, v); !ok {
			onlyA = append(onlyA, v)
		}
	}
	for _, v := range nb {
		if _, ok := slices.BinarySearch(na, v); !ok {
			onlyB = append(onlyB, v)
		}
	}
	return onlyA, onlyB
}
