package pipeline

import (
	"context"
	"reflect"
	"sync"
)

// Stage is one step of item processing: it may transform, validate or
// enrich an item and return it (the same value or a new one, of any
// type), drop it by returning an error made with Drop, or fail with any
// other error. Process may be called from several goroutines at once.
type Stage interface {
	Process(ctx context.Context, item any) (any, error)
}

// StageFunc adapts a function to the Stage interface.
type StageFunc func(ctx context.Context, item any) (any, error)

// Process calls f(ctx, item).
func (f StageFunc) Process(ctx context.Context, item any) (any, error) { return f(ctx, item) }

// DropError is a stage's decision to drop an item, with the reason. The
// reason is counted in a crawl's statistics, so it should name a kind of
// problem ("no price"), not one item.
type DropError struct{ Reason string }

func (e *DropError) Error() string { return "item dropped: " + e.Reason }

// Drop returns the error a stage returns to drop an item for reason.
func Drop(reason string) error { return &DropError{Reason: reason} }

// Typed makes a stage of a function of one item type: items of type T go
// through fn, items of any other type pass through untouched. When the
// items are pointers, T is the pointer type: a stage for P does not see
// a *P, nor a stage for *P a P (the Sink warns of that; see the package
// doc).
func Typed[T any](fn func(ctx context.Context, item T) (T, error)) Stage {
	return typed[T](fn)
}

// typed is a Typed stage: it knows its item type, so a Sink can tell a
// stage that items never match (check.go).
type typed[T any] func(ctx context.Context, item T) (T, error)

func (s typed[T]) Process(ctx context.Context, item any) (any, error) {
	t, ok := item.(T)
	if !ok {
		return item, nil
	}
	return s(ctx, t)
}

func (typed[T]) itemType() reflect.Type { return reflect.TypeFor[T]() }

// Dedup returns a stage that drops every item of type T whose key it has
// seen before, with reason "duplicate", like the duplicates filter in
// Scrapy's documentation. Items of other types pass. It keeps every key
// in memory for as long as the stage lives (one crawl, when the crawl
// makes it).
func Dedup[T any, K comparable](key func(T) K) Stage {
	var mu sync.Mutex
	seen := make(map[K]struct{})
	return Typed(func(_ context.Context, item T) (T, error) {
		k := key(item)
		mu.Lock()
		defer mu.Unlock()
		if _, dup := seen[k]; dup {
			return item, Drop("duplicate")
		}
		seen[k] = struct{}{}
		return item, nil
	})
}

type sourceKey struct{}

// WithSource returns a context carrying src, the thing an item was made
// from (heed's crawler puts the item's *crawler.Response there), for the
// stages to read with Source.
func WithSource(ctx context.Context, src any) context.Context {
	return context.WithValue(ctx, sourceKey{}, src)
}

// Source returns what WithSource put in ctx, or nil.
func Source(ctx context.Context) any { return ctx.Value(sourceKey{}) }
