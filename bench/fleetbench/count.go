package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
)

// countingProxy stands between the heed processes and redis-server and
// counts what the processes ask of Redis: commands (RESP arrays; a
// script call is one, whatever it runs inside Redis) and round trips
// (the batches of commands a client sends before it waits for answers:
// a pipeline is one). Redis's own INFO commandstats cannot tell these
// apart: it also counts every command a script runs.
type countingProxy struct {
	ln       net.Listener
	target   string
	commands atomic.Int64
	trips    atomic.Int64
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    map[net.Conn]bool
	byName   map[string]int64 // commands by name (EVALSHA by its script's SHA1 prefix)
}

func startProxy(target string) (*countingProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &countingProxy{ln: ln, target: target, conns: map[net.Conn]bool{}, byName: map[string]int64{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// addr is where the heed processes connect.
func (p *countingProxy) addr() string { return p.ln.Addr().String() }

// counts returns the commands and round trips seen so far.
func (p *countingProxy) counts() (commands, trips int64) {
	return p.commands.Load(), p.trips.Load()
}

func (p *countingProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns[c], p.conns[s] = true, true
		p.mu.Unlock()
		p.wg.Add(2)
		go func() {
			defer p.wg.Done()
			io.Copy(c, s)
			c.Close()
		}()
		go func() {
			defer p.wg.Done()
			p.forward(c, s)
			s.Close()
		}()
	}
}

// forward copies client requests to the server, counting each command
// and each batch: the commands read before the client's buffered input
// runs dry go to the server in one write, as the client sent them.
func (p *countingProxy) forward(c, s net.Conn) {
	rd := bufio.NewReader(c)
	wr := bufio.NewWriter(s)
	for {
		name, err := copyCommand(rd, wr)
		if err != nil {
			return
		}
		p.commands.Add(1)
		p.mu.Lock()
		p.byName[name]++
		p.mu.Unlock()
		if rd.Buffered() == 0 {
			p.trips.Add(1)
			if wr.Flush() != nil {
				return
			}
		}
	}
}

// copyCommand copies one RESP request (an array of bulk strings, or an
// inline command line) from rd to w and returns its name: the command,
// upper-cased, and for EVALSHA the first 8 hex digits of the script.
func copyCommand(rd *bufio.Reader, w *bufio.Writer) (string, error) {
	line, err := rd.ReadSlice('\n')
	if err != nil {
		return "", err
	}
	w.Write(line)
	if len(line) == 0 || line[0] != '*' {
		return "inline", nil // an inline command: one line
	}
	n, err := strconv.Atoi(string(trimCRLF(line[1:])))
	if err != nil || n < 0 {
		return "", fmt.Errorf("bad RESP array header %q", line)
	}
	var name []byte
	for i := range n {
		hdr, err := rd.ReadSlice('\n')
		if err != nil {
			return "", err
		}
		w.Write(hdr)
		if len(hdr) == 0 || hdr[0] != '$' {
			return "", errors.New("RESP request element is not a bulk string")
		}
		size, err := strconv.Atoi(string(trimCRLF(hdr[1:])))
		if err != nil || size < -1 {
			return "", fmt.Errorf("bad RESP bulk header %q", hdr)
		}
		if size < 0 {
			continue
		}
		if i < 2 && size <= 64 {
			// The command's name, and EVALSHA's script.
			b, err := rd.Peek(size)
			if err != nil {
				return "", err
			}
			if i == 0 {
				name = bytes.ToUpper(b)
			} else if string(name) == "EVALSHA" {
				name = append(append(name, ' '), b[:min(8, len(b))]...)
			}
		}
		if _, err := io.CopyN(w, rd, int64(size)+2); err != nil {
			return "", err
		}
	}
	return string(name), nil
}

// byCommand returns the commands seen so far by name.
func (p *countingProxy) byCommand() map[string]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.byName)
}

func trimCRLF(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

func (p *countingProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}
