package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/heedcrawl/heed/redisstore/redistest"
)

// redisServer is the benchmark's private redis-server: loopback, no
// persistence, stopped at the end.
type redisServer struct {
	bin  string
	addr string
	cmd  *exec.Cmd
	rdb  *redis.Client
	// proxy is where the heed processes connect: it counts their
	// commands and round trips (the harness's own INFO calls bypass it).
	proxy *countingProxy
}

// findRedis returns bin, or where redistest finds a redis-server: the
// same lookup heed's Redis tests use.
func findRedis(bin string) (string, error) {
	if bin != "" {
		return bin, nil
	}
	b, err := redistest.Binary()
	if err != nil {
		return "", fmt.Errorf("%w: install one (apt-get install redis-server) or pass -redis-server", err)
	}
	return b, nil
}

func startRedis(bin, dir string) (*redisServer, error) {
	bin, err := findRedis(bin)
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	rdir := filepath.Join(dir, "redis")
	if err := os.MkdirAll(rdir, 0o755); err != nil {
		return nil, err
	}
	log, err := os.Create(filepath.Join(rdir, "redis.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--dir", rdir)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	log.Close()
	s := &redisServer{bin: bin, addr: fmt.Sprintf("127.0.0.1:%d", port), cmd: cmd}
	s.rdb = redis.NewClient(&redis.Options{Addr: s.addr})
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := s.rdb.Ping(ctx).Err()
		cancel()
		if err == nil {
			if s.proxy, err = startProxy(s.addr); err != nil {
				s.stop()
				return nil, err
			}
			return s, nil
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("redis-server on %s did not answer: %w", s.addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// url is the address heed crawl --redis takes: the counting proxy's.
func (s *redisServer) url() string { return "redis://" + s.proxy.addr() + "/0" }

// cpuSeconds is the server's CPU time so far (user + system), from INFO.
func (s *redisServer) cpuSeconds(ctx context.Context) float64 {
	info, err := s.rdb.Info(ctx, "cpu").Result()
	if err != nil {
		return 0
	}
	var total float64
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok && (k == "used_cpu_sys" || k == "used_cpu_user") {
			f, _ := strconv.ParseFloat(v, 64)
			total += f
		}
	}
	return total
}

func (s *redisServer) stop() {
	if s.proxy != nil {
		s.proxy.close()
	}
	if s.rdb != nil {
		s.rdb.Close()
	}
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
	}
}
