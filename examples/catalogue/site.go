package main

import (
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
)

// The catalogue the example crawls when it is given no URL: three listing
// pages of five products each, linked by rel="next". Three things in it
// are there on purpose: W-013 has no price (the validation stage drops
// it); W-007's page links to W-004 as a related product under a second URL
// (the Dedup stage drops the copy); and the first page features W-004
// with a tracking parameter that robots.txt disallows (the skip log
// records it).
const (
	pages   = 3
	perPage = 5
)

type demoProduct struct {
	sku   string
	name  string
	price string
	tags  []string
}

func catalogueProduct(n int) demoProduct {
	p := demoProduct{
		sku:   fmt.Sprintf("W-%03d", n),
		name:  fmt.Sprintf("Widget %d", n),
		price: fmt.Sprintf("€%d.%02d", 5+n, (n*37)%100),
		tags:  []string{[]string{"steel", "brass", "oak"}[n%3], []string{"small", "large"}[n%2]},
	}
	if n == 13 {
		p.price = "" // sold out: the page shows no price
	}
	return p
}

// newCatalogue starts the catalogue on a loopback port.
func newCatalogue() *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow: /cart/\nDisallow: /*?from=\n")
	})
	mux.HandleFunc("/catalogue", func(w http.ResponseWriter, r *http.Request) {
		page, err := strconv.Atoi(r.URL.Query().Get("page"))
		if r.URL.Query().Get("page") == "" {
			page, err = 1, nil
		}
		if err != nil || page < 1 || page > pages {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		var b strings.Builder
		fmt.Fprintf(&b, "<!doctype html><html><head><title>Catalogue, page %d</title></head><body><h1>Widgets</h1><ul class=\"products\">\n", page)
		for i := 1; i <= perPage; i++ {
			n := (page-1)*perPage + i
			fmt.Fprintf(&b, "<li><a class=\"product\" href=\"/product/%d\">Widget %d</a></li>\n", n, n)
		}
		if page == 1 {
			b.WriteString("<li class=\"featured\"><a class=\"product\" href=\"/product/4?from=featured\">Widget 4 (featured)</a></li>\n")
		}
		b.WriteString("</ul>")
		if page < pages {
			fmt.Fprintf(&b, "<a rel=\"next\" href=\"/catalogue?page=%d\">next</a>", page+1)
		}
		b.WriteString("</body></html>\n")
		fmt.Fprint(w, b.String())
	})
	mux.HandleFunc("/product/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.PathValue("n"))
		if err != nil || n < 1 || n > pages*perPage {
			http.NotFound(w, r)
			return
		}
		p := catalogueProduct(n)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		var b strings.Builder
		fmt.Fprintf(&b, "<!doctype html><html><head><title>%s</title></head><body>\n<article class=\"product\" data-sku=\"%s\">\n<h1>%s</h1>\n",
			html.EscapeString(p.name), p.sku, html.EscapeString(p.name))
		if p.price != "" {
			fmt.Fprintf(&b, "<span class=\"price\">%s</span>\n", p.price)
		}
		b.WriteString("<ul class=\"tags\">")
		for _, t := range p.tags {
			fmt.Fprintf(&b, "<li>%s</li>", t)
		}
		fmt.Fprintf(&b, "</ul>\n<a href=\"/cart/add?sku=%s\">Add to cart</a>\n</article>\n", p.sku)
		if n == 7 {
			b.WriteString("<aside class=\"related\"><a href=\"/product/4?ref=related\">Widget 4</a></aside>\n")
		}
		b.WriteString("</body></html>\n")
		fmt.Fprint(w, b.String())
	})
	return httptest.NewServer(mux)
}
