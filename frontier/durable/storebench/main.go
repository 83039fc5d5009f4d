// Command storebench measures the two embedded stores considered for heed's
// durable frontier, bbolt and Pebble, on the frontier's own pattern of disk
// operations, so that the choice recorded in ../DESIGN.md rests on figures
// from this machine.
//
// It is a module of its own so that Pebble, which heed does not use, stays
// out of heed's go.mod. Each run measures one store in a fresh process (so
// that the peak RSS is that store's) and prints one line of results:
//
//	go run . -store bbolt -n 1000000 -auths 1000 -batch 100
//	go run . -store pebble -n 1000000 -auths 1000 -batch 100
//
// The workload, per URL: push (look the fingerprint up in the seen set; put
// the fingerprint and the queue entry, ~90 bytes, keyed by authority,
// priority, depth and seq), committed with fsync every -batch URLs; then
// take (find the head of the next authority's queue, round-robin; delete
// it and put a lease, one commit without fsync) and done (delete the lease,
// one commit without fsync). That is what a durable frontier writes for
// Push, Next and Done.
package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"hash/fnv"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// store is the little a frontier needs from an embedded store.
type store interface {
	// push stores a batch of (fingerprint, queue key, value) after checking
	// each fingerprint is new, in one synced commit.
	push(fps [][]byte, keys [][]byte, vals [][]byte) error
	// take finds the first queue key with prefix at or after from, deletes
	// it and records a lease, in one commit; it returns the key.
	take(prefix, from []byte) ([]byte, error)
	// done deletes a lease.
	done(key []byte) error
	close() error
}

func main() {
	which := flag.String("store", "bbolt", "bbolt or pebble")
	n := flag.Int("n", 100_000, "URLs")
	auths := flag.Int("auths", 1000, "authorities")
	batch := flag.Int("batch", 100, "URLs per synced push commit")
	dir := flag.String("dir", "", "directory for the store (default: a temporary one)")
	flag.Parse()
	if *dir == "" {
		d, err := os.MkdirTemp("", "storebench")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(d)
		*dir = d
	}
	path := filepath.Join(*dir, "state")
	var (
		s   store
		err error
	)
	switch *which {
	case "bbolt":
		s, err = openBolt(path)
	case "pebble":
		s, err = openPebble(path)
	default:
		log.Fatalf("unknown store %q", *which)
	}
	if err != nil {
		log.Fatal(err)
	}

	start := time.Now()
	var fps, keys, vals [][]byte
	for i := 0; i < *n; i++ {
		a := i % *auths
		u := "https://host" + strconv.Itoa(a) + ".example/page/" + strconv.Itoa(i)
		h := fnv.New128a()
		h.Write([]byte("GET " + u))
		fps = append(fps, h.Sum(nil))
		keys = append(keys, queueKey(uint32(a), 0, i%4, uint64(i+1)))
		vals = append(vals, value(u, i))
		if len(fps) == *batch || i == *n-1 {
			if err := s.push(fps, keys, vals); err != nil {
				log.Fatal(err)
			}
			fps, keys, vals = fps[:0], keys[:0], vals[:0]
		}
	}
	pushDur := time.Since(start)
	size := dirSize(*dir)

	start = time.Now()
	// Each authority's floor: its queue has no key below it, so a seek
	// from it skips no deleted entries.
	floor := make([][]byte, *auths)
	taken := 0
	for taken < *n {
		for a := 0; a < *auths && taken < *n; a++ {
			prefix := binary.BigEndian.AppendUint32(nil, uint32(a))
			from := floor[a]
			if from == nil {
				from = prefix
			}
			k, err := s.take(prefix, from)
			if err != nil {
				log.Fatal(err)
			}
			if k == nil {
				continue
			}
			floor[a] = k
			if err := s.done(k); err != nil {
				log.Fatal(err)
			}
			taken++
		}
	}
	popDur := time.Since(start)
	if err := s.close(); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("store=%s n=%d auths=%d batch=%d push=%.0f/s take+done=%.0f/s bytes/url=%.1f (after close %.1f) vmhwm=%s\n",
		*which, *n, *auths, *batch,
		float64(*n)/pushDur.Seconds(), float64(*n)/popDur.Seconds(),
		float64(size)/float64(*n), float64(dirSize(*dir))/float64(*n), vmHWM())
}

// queueKey orders an authority's entries by priority (higher first), depth
// and seq, as the durable frontier does.
func queueKey(auth uint32, prio, depth int, seq uint64) []byte {
	k := binary.BigEndian.AppendUint32(nil, auth)
	k = binary.BigEndian.AppendUint64(k, ^(uint64(int64(prio)) ^ 1<<63))
	k = binary.BigEndian.AppendUint64(k, uint64(int64(depth))^1<<63)
	return binary.BigEndian.AppendUint64(k, seq)
}

// value is a stand-in for an encoded request: URL, referrer and a few
// varints.
func value(u string, i int) []byte {
	var b bytes.Buffer
	b.WriteByte(1)
	b.Write(binary.AppendUvarint(nil, uint64(len(u))))
	b.WriteString(u)
	ref := u[:strings.LastIndexByte(u, '/')+1] + strconv.Itoa(i/2)
	b.Write(binary.AppendUvarint(nil, uint64(len(ref))))
	b.WriteString(ref)
	b.Write(binary.AppendUvarint(nil, uint64(i%4)))
	b.Write(binary.AppendUvarint(nil, uint64(i+1)))
	return b.Bytes()
}

func dirSize(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

func vmHWM() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			return strings.Join(strings.Fields(l)[1:], "")
		}
	}
	return "?"
}
