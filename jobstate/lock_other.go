//go:build !unix

package jobstate

import "os"

// lockFile does nothing where flock is not available: the frontier's own
// store lock still keeps a second crawl out, with a less specific error.
func lockFile(*os.File, bool) (held bool, err error) { return false, nil }
