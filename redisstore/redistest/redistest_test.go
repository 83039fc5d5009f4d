package redistest

import (
	"context"
	"fmt"
	"testing"
)

// recorder is a testing.TB that records how a test would have ended.
type recorder struct {
	testing.TB
	ended string
}

type ended struct{}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(f string, args ...any) {
	r.ended = "fail: " + fmt.Sprintf(f, args...)
	panic(ended{})
}
func (r *recorder) Skipf(f string, args ...any) {
	r.ended = "skip: " + fmt.Sprintf(f, args...)
	panic(ended{})
}

func startWith(t *testing.T) (res string) {
	r := &recorder{TB: t}
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(ended); !ok {
				panic(v)
			}
			res = r.ended[:4]
		}
	}()
	Start(r)
	return "started"
}

// Without a binary, the Redis tests skip, unless HEED_REQUIRE_REDIS asks
// for them to fail.
func TestMissingServer(t *testing.T) {
	for _, tt := range []struct {
		require string
		want    string
	}{
		{"", "skip"},
		{"0", "skip"},
		{"1", "fail"},
		{"yes", "fail"},
	} {
		t.Setenv(EnvBinary, "/nonexistent/redis-server")
		t.Setenv(EnvRequire, tt.require)
		if got := startWith(t); got != tt.want {
			t.Errorf("%s=%q: the test would %s; want %s", EnvRequire, tt.require, got, tt.want)
		}
	}
}

func TestStartStopRestart(t *testing.T) {
	s := Start(t, WithPersistence())
	c := s.Client(t)
	ctx := context.Background()
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	s.Kill()
	if err := c.Ping(ctx).Err(); err == nil {
		t.Fatal("the killed server answered")
	}
	s.Restart(t)
	if v, err := c.Get(ctx, "k").Result(); v != "v" || err != nil {
		t.Errorf("after a restart GET = %q, %v; want the persisted value", v, err)
	}
	s.Stop()
	s.Stop() // harmless
}
