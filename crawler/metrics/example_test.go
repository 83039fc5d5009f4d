package metrics_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/crawler/metrics"
)

// Serve a crawl's metrics while it runs, labelled with its agent, with
// per-authority series for at most 10 hosts.
func ExampleListen() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "hello")
	}))
	defer site.Close()

	c, err := crawler.New("ExampleBot", crawler.WithDelay(0))
	if err != nil {
		log.Fatal(err)
	}
	srv, err := metrics.Listen("127.0.0.1:0", c.Stats(), prometheus.Labels{"agent": c.Agent()}, metrics.WithAuthorityLimit(10))
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	// Prometheus scrapes http://<srv.Addr()>/metrics while this runs.
	sum, err := c.Run(context.Background(), site.URL+"/")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("pages:", sum.Stats.Pages)
	// Output: pages: 1
}
