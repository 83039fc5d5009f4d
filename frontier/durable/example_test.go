package durable_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/durable"
)

// A crawl that stops with a request in flight, and its resumption: the
// request is handed out again, the rest of the queue follows, and URLs
// seen before stay seen.
func Example() {
	dir, err := os.MkdirTemp("", "heed-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	state := filepath.Join(dir, "frontier")
	ctx := context.Background()

	f, err := durable.Open(state)
	if err != nil {
		log.Fatal(err)
	}
	// The links of one page: one write, one fsync.
	res, _ := f.PushBatch(ctx, []*frontier.Request{
		{URL: "https://example.com/"},
		{URL: "https://example.com/about"},
		{URL: "https://example.com/#top"}, // the same URL as the first
	})
	fmt.Println(res)
	r, _ := f.Next(ctx)
	fmt.Println("fetching", r.URL)
	f.PutMeta("stats/pages", []byte("0"))
	f.Close() // or a crash: the lease is on disk either way

	f, err = durable.Open(state)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	for {
		r, err := f.Next(ctx)
		if err != nil {
			fmt.Println(err)
			break
		}
		fmt.Println("fetching", r.URL)
		f.Done(ctx, r)
	}
	again, _ := f.Push(ctx, &frontier.Request{URL: "https://example.com/about"})
	pages, _ := f.GetMeta("stats/pages")
	fmt.Println(again, string(pages))
	// Output:
	// [added added duplicate]
	// fetching https://example.com/
	// fetching https://example.com/
	// fetching https://example.com/about
	// frontier: exhausted
	// duplicate 0
}
