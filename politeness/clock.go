package politeness

import "time"

// Clock is the Pacer's source of time. The default is the system clock;
// tests pass a manual clock with [WithClock] so that they never sleep.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// After returns a channel that receives once d has passed. Only
	// [Pacer.Wait] uses it, and it may abandon the channel when its
	// context ends, so the implementation must not need a Stop.
	After(d time.Duration) <-chan time.Time
}

// systemClock is the default Clock. Abandoning a time.After channel is safe:
// since Go 1.23 an unreferenced timer is collected without Stop.
type systemClock struct{}

func (systemClock) Now() time.Time                         { return time.Now() }
func (systemClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
