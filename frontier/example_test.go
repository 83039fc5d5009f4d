package frontier_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/heedcrawl/heed/frontier"
)

// A crawl loop: push seeds and discovered links, take requests with Next,
// and report each one Done; Next says when the crawl has nothing left.
func Example() {
	ctx := context.Background()
	f := frontier.NewMemory()
	defer f.Close()

	for _, u := range []string{
		"HTTP://Example.com:80/a/../index.html#top",
		"http://example.com/index.html", // the same URL: a duplicate
		"https://example.org/",
		"mailto:someone@example.com",
	} {
		res, err := f.Push(ctx, &frontier.Request{URL: u})
		fmt.Println(res, err)
	}
	for {
		req, err := f.Next(ctx)
		if errors.Is(err, frontier.ErrExhausted) {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("fetch", req.URL)
		f.Done(ctx, req)
	}
	st := f.Stats()
	fmt.Println(st.Seen, "seen,", st.Duplicates, "duplicate,", st.Rejected, "rejected")
	// Output:
	// added <nil>
	// duplicate <nil>
	// added <nil>
	// rejected frontier: invalid URL "mailto:someone@example.com": scheme "mailto" is not http or https
	// fetch http://example.com/index.html
	// fetch https://example.org/
	// 2 seen, 1 duplicate, 1 rejected
}

func ExampleCanonicalize() {
	for _, u := range []string{
		"HTTPS://User:secret@Example.COM:443/a/./b/../%7euser/%2f?q=a+b&z=1#frag",
		"http://bücher.example/straße",
		"javascript:void(0)",
	} {
		c, err := frontier.Canonicalize(u)
		fmt.Println(c, errors.Is(err, frontier.ErrUnsupportedScheme))
	}
	// Output:
	// https://example.com/a/~user/%2F?q=a+b&z=1 false
	// http://xn--bcher-kva.example/stra%C3%9Fe false
	//  true
}

// A gate decides when each authority may be fetched; heed's politeness
// package provides the real one. Here one host is paused for an hour and
// the frontier hands out the other host's requests meanwhile.
func ExampleWithGate() {
	ctx := context.Background()
	paused := frontier.GateFunc(func(authority string) (t time.Time) {
		if authority == "https://slow.example" {
			return time.Now().Add(time.Hour)
		}
		return t
	})
	f := frontier.NewMemory(frontier.WithGate(paused))
	defer f.Close()
	for _, u := range []string{"https://slow.example/1", "https://fast.example/1", "https://fast.example/2"} {
		f.Push(ctx, &frontier.Request{URL: u})
	}
	for i := 0; i < 2; i++ {
		req, _ := f.Next(ctx)
		fmt.Println("fetch", req.URL)
		f.Done(ctx, req)
	}
	fmt.Println(f.Stats().ByAuthority)
	// Output:
	// fetch https://fast.example/1
	// fetch https://fast.example/2
	// map[https://slow.example:1]
}

func ExampleNewFingerprint() {
	fmt.Println(frontier.NewFingerprint("GET", "http://example.com/"))
	// Output: d8c2657dab4ba76a619c515f7603c579
}
