// Package feed writes a crawl's items to files, as Scrapy's feed exports
// do: JSON Lines, JSON arrays and CSV, gzipped or not, chosen by the file
// name. Its exporters are pipeline.Exporter values (crawler.Exporter in
// a spider), given to a crawl with Crawler.Export; the package imports
// the pipeline's interface, not the engine:
//
//	f, err := feed.Open("books.csv.gz") // or .jsonl, .json
//	c.Export(f)                          // the crawl closes it when it ends
//
// # The model
//
// An exporter (NewJSONLines, NewJSONArray, NewCSV) turns one item at a
// time into bytes on an io.Writer, and writes each item with one Write,
// so that a feed that is not compressed holds only complete records
// whatever stops the crawl, even a killed process. Close writes what a
// format needs at its end (the JSON array's bracket, the header of an
// empty CSV). A Feed is an exporter that owns its file: Open creates it
// (the format from the extension, or WithFormat; ".gz" compresses, or
// WithGzip), Resume appends to the feed of a job that resumes after a
// pause or a crash, first dropping a last record a crash cut (RepairTail).
//
// # Limits
//
// A gzip stream is complete only after Close, and a JSON array is closed
// at the end of each run: neither can be resumed (Resume refuses them with
// ErrNotResumable). A CSV feed's columns are fixed by its first item (or
// CSVColumns); later items are matched to them by name. The package does
// not run pipelines (package pipeline does, for the crawler) or decide
// which items exist (the spider does).
package feed
