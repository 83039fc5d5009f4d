package redisstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"
)

// replyErr is an error reply of the Redis server, as go-redis returns it.
type replyErr string

func (e replyErr) Error() string { return string(e) }
func (replyErr) RedisError()     {}

func TestTransient(t *testing.T) {
	dialErr := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{redis.Nil, false},
		{context.Canceled, false},
		{redis.ErrClosed, false},
		{errors.New("redis: unexpected type=int64 for Slice"), false},
		{replyErr("ERR Error running script: attempt to compare nil"), false},
		{replyErr("WRONGTYPE Operation against a key holding the wrong kind of value"), false},
		{replyErr("LOADING Redis is loading the dataset in memory"), true},
		{replyErr("BUSY Redis is busy running a script"), true},
		{dialErr, true},
		{fmt.Errorf("wrapped: %w", dialErr), true},
		{io.EOF, true},
		{syscall.ECONNRESET, true},
		{redis.ErrPoolTimeout, true},
	} {
		if got := transient(tt.err); got != tt.want {
			t.Errorf("transient(%v) = %v; want %v", tt.err, got, tt.want)
		}
	}
}
