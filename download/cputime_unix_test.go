//go:build unix

package download

import (
	"syscall"
	"testing"
	"time"
)

// reportCPU reports the process's CPU time (user and system, every
// goroutine's, the loopback server's included) per iteration of b as
// cpu-ns/op: on a shared machine it varies less than wall time. Call it
// with the time processCPU gave before the loop.
func reportCPU(b *testing.B, before time.Duration) {
	b.ReportMetric(float64(processCPU()-before)/float64(b.N), "cpu-ns/op")
}

// processCPU is the CPU time the process has used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
