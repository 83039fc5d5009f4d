// Package redispacer paces a heed crawl fleet-wide.
package redispacer
