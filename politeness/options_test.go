package politeness

import (
	"testing"
	"time"
)

func TestNewSettings(t *testing.T) {
	s, err := NewSettings()
	if err != nil {
		t.Fatal(err)
	}
	want := Settings{
		Floor: DefaultFloor, Concurrency: DefaultConcurrency, MaxCrawlDelay: DefaultMaxCrawlDelay,
		BackoffBase: DefaultBackoffBase, BackoffMax: DefaultBackoffMax, MaxPause: DefaultMaxPause,
		GiveUp: DefaultGiveUp, Clock: systemClock{},
	}
	if s != want {
		t.Errorf("NewSettings() = %+v; want %+v", s, want)
	}
	s, err = NewSettings(WithFloor(2*time.Second), nil, WithBackoff(0, 0), WithFloor(3*time.Second))
	if err != nil || s.Floor != 3*time.Second || s.BackoffBase != 0 || s.BackoffMax != 0 {
		t.Errorf("NewSettings with options = %+v, %v; want the last floor and no backoff", s, err)
	}
	if _, err := NewSettings(WithFloor(-1), WithConcurrency(0)); err == nil {
		t.Error("NewSettings accepted a negative floor and no concurrency")
	}
}
