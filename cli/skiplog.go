package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/heedcrawl/heed/skiplog"
)

func (a *App) skiplogCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "skiplog",
		Short: "Work with skip logs, the record of every URL a crawl did not fetch",
	}
	cmd.AddCommand(a.skiplogMergeCommand())
	return cmd
}

func (a *App) skiplogMergeCommand() *cobra.Command {
	stdout, stderr := a.stdout, a.stderr
	var out string
	var ow overwriteFlag
	cmd := &cobra.Command{
		Use:   "merge OUT IN... | merge --out OUT IN... [--overwrite]",
		Short: "Combine the skip logs of the processes of one crawl into one",
		Long: `Each process of a crawl run by several heed processes (heed crawl --redis)
writes its own skip log. merge combines them into one skip log: records in
time order, exactly one record per URL. Two processes record the same URL
only when a request's lease expired and both handled it; the earliest
record is kept and the others are counted as duplicates. A summary by
reason and authority is printed (on stderr when OUT is -, stdout).

Each input must be in time order, as heed writes it. An input with a line
that is not a complete record (the last line of a process killed
mid-write, say) or a record earlier than the line before it fails the
merge with an error naming the file and the line, and OUT is left as it
was: the merged log is written to a temporary file beside OUT and renamed
when complete. An existing non-empty OUT is refused unless --overwrite:
a merge whose output was forgotten would otherwise replace the first
input's log with the others'.

Exit status: 0 on success, 1 when an input is damaged or out of order,
2 on usage errors.`,
		Example: `  heed skiplog merge skipped.jsonl host1/skipped.jsonl host2/skipped.jsonl
  heed skiplog merge --out - p1.jsonl p2.jsonl > skipped.jsonl`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				if len(args) < 2 {
					return usageError("merge needs an output and at least one input (or --out OUT and inputs)")
				}
				out, args = args[0], args[1:]
			}
			if len(args) == 0 {
				return usageError("merge needs at least one input")
			}
			if !ow.overwrite {
				if err := refuseExisting("OUT", out, "add --overwrite to replace it (without --out, OUT is the first argument)"); err != nil {
					return err
				}
			}
			return skiplogMerge(out, args, stdout, stderr)
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "the merged skip log (- for stdout); without it, the first argument")
	ow.register(cmd.Flags())
	return cmd
}

// skiplogMerge merges the inputs into out, through a temporary file that
// replaces out only when the merge succeeded.
func skiplogMerge(out string, inputs []string, stdout, stderr io.Writer) error {
	var readers []io.Reader
	var outInfo os.FileInfo
	if out != "-" {
		outInfo, _ = os.Stat(out)
	}
	for _, in := range inputs {
		f, err := os.Open(in)
		if err != nil {
			return &exitError{code: 1, err: err}
		}
		defer f.Close()
		if outInfo != nil {
			if fi, err := f.Stat(); err == nil && os.SameFile(fi, outInfo) {
				return usageError("the output %s is also an input", out)
			}
		}
		readers = append(readers, f)
	}
	summary := stdout
	var st skiplog.MergeStats
	var err error
	if out == "-" {
		summary = stderr
		st, err = skiplog.Merge(stdout, readers...)
	} else {
		st, err = mergeToFile(out, readers)
	}
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	if err := st.Format(summary); err != nil {
		return err
	}
	fmt.Fprintf(summary, "  read %d records from %d logs", st.Read, len(inputs))
	if st.Duplicates > 0 {
		fmt.Fprintf(summary, "; %d duplicates dropped (the earliest record of each URL kept):", st.Duplicates)
		for _, r := range skiplog.Reasons {
			if n := st.DuplicatesByReason[r]; n > 0 {
				fmt.Fprintf(summary, " %s=%d", r, n)
			}
		}
	}
	fmt.Fprintln(summary)
	return nil
}

func mergeToFile(out string, readers []io.Reader) (skiplog.MergeStats, error) {
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".merge-*")
	if err != nil {
		return skiplog.MergeStats{}, err
	}
	defer os.Remove(tmp.Name()) // after the rename, there is nothing to remove
	st, err := skiplog.Merge(tmp, readers...)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), out)
	}
	return st, err
}
