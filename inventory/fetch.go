package inventory

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/skiplog"
)

// fetchSitemap is Walk's FetchFunc: one sitemap through the robots stage,
// pacing and retries, its redirects followed (each hop checked again).
func (iv *inventoryRun) fetchSitemap(ctx context.Context, sitemapURL string, isRoot map[string]bool) (io.ReadCloser, error) {
	canon, err := frontier.Canonicalize(sitemapURL)
	if err != nil {
		return nil, err
	}
	if !isRoot[canon] && !iv.cfg.Sitemaps.Follows(canon) {
		rec := &skiplog.Record{URL: canon, Reason: skiplog.SitemapFilter, Detail: "sitemap matches no follow pattern"}
		iv.skip(rec)
		return nil, rec
	}
	if iv.read[canon] {
		return nil, errReadBefore
	}
	iv.read[canon] = true
	req := &frontier.Request{URL: canon, Kind: frontier.KindSitemap}
	for range maxPolls {
		resp, err := iv.chain.Fetch(ctx, req)
		var de *middleware.DeferError
		var rec *skiplog.Record
		switch {
		case errors.As(err, &de):
			if err := middleware.SleepUntil(ctx, de.Until); err != nil {
				return nil, err
			}
			continue
		case errors.As(err, &rec):
			iv.skip(rec)
			return nil, rec
		case err != nil:
			return nil, err
		}
		body := resp.Stream
		if body == nil {
			body = io.NopCloser(bytes.NewReader(resp.Body))
		}
		switch {
		case resp.Status >= 300 && resp.Status < 400 && resp.Header.Get("Location") != "":
			body.Close()
			next, err := middleware.RedirectHop(req, resp.Status, resp.Header.Get("Location"), iv.cfg.MaxRedirects)
			if err != nil {
				iv.skip(err)
				return nil, err
			}
			req = next
			continue
		case resp.Status < 200 || resp.Status >= 300:
			body.Close()
			return nil, &SitemapStatusError{URL: req.URL, Status: resp.Status}
		}
		iv.inv.sitemaps.Add(1)
		return body, nil
	}
	return nil, fmt.Errorf("sitemap %s: not fetched after %d tries", canon, maxPolls)
}
