// Package redisfrontier keeps a heed crawl's shared state in Redis.
package redisfrontier
