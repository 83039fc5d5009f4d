// Package aipref reads AI usage preferences as the IETF AI Preferences
// working group defines them: the vocabulary of categories of use and its
// Structured Fields serialisation (draft-ietf-aipref-vocab-07), and the
// Content-Usage HTTP response header (draft-ietf-aipref-attach-05). heed
// followed the drafts as of github.com/ietf-wg-aipref/drafts commit
// 7ca0afc (2026-08-19), where both tags point; the vocabulary section of
// -07 is marked as not yet having consensus, so the table may change.
//
// # The model
//
// A statement of preference is a Structured Fields dictionary (RFC 9651
// §3.2) such as "train-ai=n, search=y": each key is the label of a
// category of use ([Categories]), each value the Token y (allow) or n
// (disallow). Processing (vocab §6.6) gives every category one [Value]:
// [Allow], [Disallow] or [Unknown]. Unknown keys and parameters are
// ignored; a value that is not the Token y or n is Unknown; a dictionary
// that does not parse (uppercase keys included) leaves every category
// Unknown. The parsing itself is github.com/dunglas/httpsfv's, which
// passes the HTTP working group's Structured Fields test suite.
//
// A response can be subject to several statements: the robots.txt
// Content-Usage rules that apply to its URL (read by heed's robots
// package, which finds the deciding rules) and its Content-Usage header.
// [Combine] merges them per category as vocab §5.1 says: any Disallow
// wins, then any Allow, else Unknown, and keeps the [Statement] that
// decided as evidence.
//
// # Using it
//
//	p := aipref.Parse("train-ai=n")                // never fails
//	h := aipref.FromHeader(resp.Header, pageURL)   // Statement, ok
//	d := aipref.Combine("train-ai", robotsStmt, h) // Decision with evidence
//	if d.Value == aipref.Disallow { ... }          // the site asks: not for training
//
// # What it does not do
//
// It fetches nothing and decides nothing about fetching: robots.txt
// Allow/Disallow governs that, and preferences apply only to URLs that may
// be crawled. What a crawl does with a Disallow for a purpose it declared
// is heed's crawler's policy (it fetches the page and exports none of its
// items, with a skip-log record).
package aipref
