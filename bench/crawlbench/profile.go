package main

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"time"
)

// profiles records a CPU profile for the whole crawl and a heap profile
// taken near the live heap's peak: the end of a crawl is not where its
// memory peaks, so a sampler watches the live heap and keeps the heap
// profile of the largest one seen.
type profiles struct {
	cpu      *os.File
	heapPath string
	stopCh   chan struct{}
	wg       sync.WaitGroup
	heapPeak uint64
	heapProf []byte
}

func startProfiles(cpuPath, heapPath string) (*profiles, error) {
	p := &profiles{heapPath: heapPath, stopCh: make(chan struct{})}
	if cpuPath != "" {
		f, err := os.Create(cpuPath)
		if err != nil {
			return nil, fmt.Errorf("cpu profile: %w", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("cpu profile: %w", err)
		}
		p.cpu = f
	}
	if heapPath != "" {
		p.wg.Add(1)
		go p.sampleHeap()
	}
	return p, nil
}

const liveHeapMetric = "/gc/heap/live:bytes"

// sampleHeap snapshots the heap profile whenever the live heap (as of
// the last GC) has grown by 5% over the largest seen so far.
func (p *profiles) sampleHeap() {
	defer p.wg.Done()
	sample := []metrics.Sample{{Name: liveHeapMetric}}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var lastSnap uint64
	for {
		select {
		case <-p.stopCh:
			return
		case <-tick.C:
		}
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		live := sample[0].Value.Uint64()
		if live > p.heapPeak {
			p.heapPeak = live
		}
		if live > lastSnap+lastSnap/20 {
			var buf bytes.Buffer
			if err := pprof.Lookup("heap").WriteTo(&buf, 0); err == nil {
				p.heapProf, lastSnap = buf.Bytes(), live
			}
		}
	}
}

func (p *profiles) stop() error {
	if p == nil {
		return nil
	}
	if p.cpu != nil {
		pprof.StopCPUProfile()
		if err := p.cpu.Close(); err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
	}
	if p.heapPath == "" {
		return nil
	}
	close(p.stopCh)
	p.wg.Wait()
	if p.heapProf == nil {
		// The crawl was over before the first sample: take one now.
		runtime.GC()
		var buf bytes.Buffer
		if err := pprof.Lookup("heap").WriteTo(&buf, 0); err != nil {
			return fmt.Errorf("heap profile: %w", err)
		}
		p.heapProf = buf.Bytes()
	}
	if err := os.WriteFile(p.heapPath, p.heapProf, 0o644); err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	return nil
}

// sampleRuntime watches the goroutine count and the memory in goroutine
// stacks until the returned function is called, which reports the peaks.
func sampleRuntime() (stop func() (goroutines int, stackBytes uint64)) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	var peakG int
	var peakS uint64
	sample := []metrics.Sample{{Name: "/memory/classes/heap/stacks:bytes"}}
	read := func() {
		peakG = max(peakG, runtime.NumGoroutine())
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			peakS = max(peakS, sample[0].Value.Uint64())
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				read()
			}
		}
	}()
	return func() (int, uint64) {
		close(done)
		wg.Wait()
		read()
		return peakG, peakS
	}
}
