package jobstate_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/heedcrawl/heed/internal/crawltest"
)

// The crawl tests' helpers are crawltest's, shared with the engine's tests.
var (
	checkRequestsMatchOracle = crawltest.CheckRequestsMatchOracle
	checkSkipsMatchOracle    = crawltest.CheckSkipsMatchOracle
	countRequests            = crawltest.CountRequests
	readSkipLog              = crawltest.ReadSkipLog
	siteOptions              = crawltest.SiteOptions
	skipsByURL               = crawltest.SkipsByURL
	startGenerated           = crawltest.StartGenerated
	startScenario            = crawltest.StartScenario
)

// bookshop serves a home page linking to two books and a private page
// that robots.txt disallows (the site of the crawler's package example).
func bookshop() *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><body><a href="/book/1">one</a> <a href="book/2">two</a> <a href="/private/admin">admin</a></body></html>`)
	})
	mux.HandleFunc("/book/{n}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<html><body><h1>Book %s</h1></body></html>`, r.PathValue("n"))
	})
	return httptest.NewServer(mux)
}
