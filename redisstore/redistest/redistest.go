// Package redistest starts a private redis-server for tests of heed's Redis
// backends: on a free loopback port, with its files in the test's temporary
// directory, stopped when the test ends.
//
// A test that needs Redis calls [Start]. When no redis-server binary can be
// found, Start skips the test with a message saying how to install one,
// unless the environment variable HEED_REQUIRE_REDIS is set to a non-empty
// value other than "0": then the test fails, so that a CI machine that should
// run the Redis tests cannot silently skip them. HEED_REDIS_SERVER names the
// binary to use; otherwise it is looked up in PATH, then in /usr/bin and
// /usr/local/bin.
//
// The server keeps nothing on disk by default (no snapshots, no
// append-only file); [WithPersistence] turns on an append-only file synced on every write,
// for tests that restart the server and expect their data back.
package redistest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/heedcrawl/heed/redisstore"
	"github.com/redis/go-redis/v9"
)

// EnvRequire is the environment variable that turns a missing redis-server
// from a skipped test into a failed one.
const EnvRequire = "HEED_REQUIRE_REDIS"

// EnvBinary is the environment variable naming the redis-server binary.
const EnvBinary = "HEED_REDIS_SERVER"

// startTimeout bounds how long a server may take to answer PING.
const startTimeout = 10 * time.Second

// Server is a redis-server child process. Its methods are safe for
// concurrent use.
type Server struct {
	// Addr is the server's "127.0.0.1:port".
	Addr string
	// Dir is the server's working directory (its AOF, if persistent).
	Dir string

	bin     string
	persist bool
	out     *bytes.Buffer // the server's log, for failure messages

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan error // receives the running server's exit status
}

// Option configures a Server.
type Option func(*Server)

// WithPersistence makes the server keep an append-only file synced on every
// write, so that a Restart keeps the data.
func WithPersistence() Option { return func(s *Server) { s.persist = true } }

// Binary returns the path of the redis-server binary to use.
func Binary() (string, error) {
	if b := os.Getenv(EnvBinary); b != "" {
		if _, err := os.Stat(b); err != nil {
			return "", fmt.Errorf("redistest: %s=%s: %w", EnvBinary, b, err)
		}
		return b, nil
	}
	if b, err := exec.LookPath("redis-server"); err == nil {
		return b, nil
	}
	for _, b := range []string{"/usr/bin/redis-server", "/usr/local/bin/redis-server"} {
		if _, err := os.Stat(b); err == nil {
			return b, nil
		}
	}
	return "", errors.New("redistest: redis-server not found in PATH, /usr/bin or /usr/local/bin")
}

// Required reports whether HEED_REQUIRE_REDIS asks for the Redis tests to
// fail rather than skip when no server can be started.
func Required() bool {
	v := os.Getenv(EnvRequire)
	return v != "" && v != "0"
}

// Start starts a redis-server for the test and stops it when the test ends.
// It skips the test (or fails it, see [EnvRequire]) when no binary is found.
func Start(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	bin, err := Binary()
	if err != nil {
		if Required() {
			tb.Fatalf("%v (%s is set, so the Redis tests must run)", err, EnvRequire)
		}
		tb.Skipf("%v; install it (apt-get install redis-server) or set %s; set %s=1 to fail instead of skipping",
			err, EnvBinary, EnvRequire)
	}
	s := &Server{bin: bin, Dir: tb.TempDir(), out: new(bytes.Buffer)}
	for _, o := range opts {
		o(s)
	}
	// A free port found by listening may be taken again before the server
	// binds it; a few tries make that race harmless.
	var last error
	for try := 0; try < 5; try++ {
		port, err := freePort()
		if err != nil {
			tb.Fatalf("redistest: %v", err)
		}
		s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		if last = s.start(); last == nil {
			tb.Cleanup(s.Stop)
			return s
		}
	}
	tb.Fatalf("redistest: cannot start %s: %v\n%s", bin, last, s.log())
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *Server) args() []string {
	_, port, _ := net.SplitHostPort(s.Addr)
	a := []string{
		"--port", port, "--bind", "127.0.0.1", "--dir", s.Dir,
		"--save", "", "--daemonize", "no", "--protected-mode", "yes",
		"--loglevel", "warning",
	}
	if s.persist {
		return append(a, "--appendonly", "yes", "--appendfsync", "always")
	}
	return append(a, "--appendonly", "no")
}

// start runs the server and waits until it answers PING.
func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cmd := exec.Command(s.bin, s.args()...)
	cmd.Dir = s.Dir
	cmd.Stdout = lockedWriter{s}
	cmd.Stderr = lockedWriter{s}
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	c := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1, DialTimeout: time.Second})
	defer c.Close()
	deadline := time.Now().Add(startTimeout)
	for {
		select {
		case err := <-exited:
			return fmt.Errorf("redis-server exited: %v", err)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			s.cmd, s.exited = cmd, exited
			return nil
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-exited
			return fmt.Errorf("no answer to PING within %v: %v", startTimeout, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type lockedWriter struct{ s *Server }

func (w lockedWriter) Write(p []byte) (int, error) {
	logMu.Lock()
	defer logMu.Unlock()
	return w.s.out.Write(p)
}

var logMu sync.Mutex

func (s *Server) log() string {
	logMu.Lock()
	defer logMu.Unlock()
	return s.out.String()
}

// Log returns what the server wrote to its standard output and error.
func (s *Server) Log() string { return s.log() }

// Stop shuts the server down (SIGTERM, then SIGKILL after 10 s) and waits
// for it. Stopping a stopped server does nothing.
func (s *Server) Stop() { s.signal(syscall.SIGTERM) }

// Kill kills the server with SIGKILL, as a crash would, and waits for it.
func (s *Server) Kill() { s.signal(syscall.SIGKILL) }

func (s *Server) signal(sig syscall.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(sig)
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.exited
	}
	s.cmd, s.exited = nil, nil
}

// Restart starts the server again on the same port and directory after
// Stop or Kill (a persistent server comes back with its data).
func (s *Server) Restart(tb testing.TB) {
	tb.Helper()
	var err error
	for try := 0; try < 20; try++ {
		if err = s.start(); err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond) // the port may linger for a moment
	}
	tb.Fatalf("redistest: restart on %s: %v\n%s", s.Addr, err, s.log())
}

// URL returns the server's address as a redis:// URL with database db.
func (s *Server) URL(db int) string {
	return "redis://" + s.Addr + "/" + strconv.Itoa(db)
}

// Client returns a new client of the server, closed when the test ends.
func (s *Server) Client(tb testing.TB) *redis.Client {
	tb.Helper()
	c := redis.NewClient(&redis.Options{Addr: s.Addr})
	tb.Cleanup(func() { c.Close() })
	return c
}

var prefixes atomic.Int64

// Prefix returns a key prefix no other caller of this process uses, so
// that the tests sharing one server keep out of each other's keys.
func Prefix() string {
	return fmt.Sprintf("heedtest:%d:%d:", time.Now().UnixNano()%1e6, prefixes.Add(1))
}

// Store returns a store of rdb under prefix, failing the test if it
// cannot be made.
func Store(tb testing.TB, rdb redis.UniversalClient, prefix string, opts ...redisstore.StoreOption) *redisstore.Store {
	tb.Helper()
	s, err := redisstore.NewStore(rdb, prefix, opts...)
	if err != nil {
		tb.Fatalf("redistest: NewStore: %v", err)
	}
	return s
}
