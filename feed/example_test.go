package feed_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/heedcrawl/heed/feed"
)

type Book struct {
	Title string  `json:"title"`
	Price float64 `json:"price"`
	URL   string  `json:"url"`
}

// CSV columns come from the first item's struct fields and tags; nested
// values are written as JSON.
func ExampleNewCSV() {
	type row struct {
		Title string   `json:"title"`
		Price float64  `json:"price"`
		Tags  []string `csv:"tags"`
		Notes string   `json:"-"`
	}
	e := feed.NewCSV(os.Stdout)
	e.Export(row{Title: "Dune, 1965", Price: 9.5, Tags: []string{"sf"}})
	e.Export(row{Title: "Emma", Price: 4})
	e.Close()
	// Output:
	// title,price,tags
	// "Dune, 1965",9.5,"[""sf""]"
	// Emma,4,null
}

// A JSON array is closed by Close, also after an interrupted crawl.
func ExampleNewJSONArray() {
	e := feed.NewJSONArray(os.Stdout)
	e.Export(Book{Title: "Dune", Price: 9.5})
	e.Export(Book{Title: "Emma", Price: 4})
	e.Close()
	// Output:
	// [
	// {"title":"Dune","price":9.5,"url":""},
	// {"title":"Emma","price":4,"url":""}
	// ]
}

// Open picks the format from the file name; ".gz" compresses.
func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "feed")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "books.csv")
	f, err := feed.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	f.Export(Book{Title: "Dune", Price: 9.5})
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	fmt.Print(f.Format(), "\n", string(b))
	// Output:
	// csv
	// title,price,url
	// Dune,9.5,
}
