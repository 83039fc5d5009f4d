package main

import (
	"context"
	"log"
	"os"
	"os/signal"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/feed"
)

type Book struct {
	Title string `json:"title"`
	Price string `json:"price"`
	URL   string `json:"url"`
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt) // Ctrl-C stops cleanly
	defer stop()
	books, err := feed.Open("books.csv") // or .jsonl, .json; .gz compresses
	if err != nil {
		log.Fatal(err)
	}
	skipped, _ := os.Create("skipped.jsonl")
	defer skipped.Close()
	c, err := crawler.New("ExampleBot", crawler.WithSkipLog(skipped))
	if err != nil {
		log.Fatal(err)
	}
	c.Export(books)
	c.OnHTML("a.next", func(e *crawler.HTMLElement) { e.Follow(e.Attr("href")) })
	c.OnHTML("a.book", func(e *crawler.HTMLElement) { e.Follow(e.Attr("href"), crawler.WithCallback("book")) })
	c.Handle("book").OnHTML("article", func(e *crawler.HTMLElement) {
		e.Emit(Book{Title: e.ChildText("h1"), Price: e.ChildText(".price"), URL: e.Response.URL.String()})
	})
	c.Pipeline(crawler.Stage(func(_ context.Context, b Book) (Book, error) {
		if b.Price == "" {
			return b, crawler.Drop("no price")
		}
		return b, nil
	}))
	sum, err := c.Run(ctx, "https://books.example/catalogue/")
	if err != nil {
		log.Fatal(err)
	}
	sum.Stats.Format(os.Stdout)
}
