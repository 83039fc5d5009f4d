// Command heed is the command line of the heed crawling framework: crawl a
// site politely, check and lint robots.txt files, build a sitemap inventory,
// and run the built-in demo.
//
// Every subcommand is a thin layer over the library packages; whatever a
// program embedding heed would also need lives in those packages, not here.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// exitError carries a process exit status through cobra's error return.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageError marks a mistake in the command line: exit status 2.
func usageError(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

// commands lists the constructors of heed's subcommands; each file of this
// package that defines a subcommand appends to it from an init function.
var commands []func(stdout, stderr io.Writer) *cobra.Command

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "heed",
		Short:         "heed: a polite crawling framework with RFC 9309 robots.txt compliance built in",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &exitError{code: 2, err: err}
	})
	for _, c := range commands {
		root.AddCommand(c(stdout, stderr))
	}
	return root
}

// run executes the command line and returns the process exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "heed:", ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "heed:", err)
	return 1
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
