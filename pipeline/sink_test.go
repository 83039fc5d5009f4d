package pipeline_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/heedcrawl/heed/pipeline"
)

type product struct {
	SKU   string
	Price int
}

// memory is an exporter that keeps what it is given.
type memory struct {
	got    []any
	closed int
	fail   func(any) error
}

func (m *memory) Export(it any) error {
	if m.fail != nil {
		if err := m.fail(it); err != nil {
			return err
		}
	}
	m.got = append(m.got, it)
	return nil
}

func (m *memory) Close() error { m.closed++; return nil }

// TestSinkRunsStagesInOrderThenExporters: each stage sees what the one
// before returned, the exporters see what the last returned, a drop
// stops the item at its stage with its reason, and a panic in a stage or
// an exporter costs one item.
func TestSinkRunsStagesInOrderThenExporters(t *testing.T) {
	var order []string
	price := pipeline.Typed(func(_ context.Context, p product) (product, error) {
		order = append(order, "price:"+p.SKU)
		if p.Price == 0 {
			return p, pipeline.Drop("no price")
		}
		p.Price *= 2
		return p, nil
	})
	wrap := pipeline.StageFunc(func(_ context.Context, it any) (any, error) {
		p := it.(product)
		order = append(order, "wrap:"+p.SKU)
		if p.SKU == "boom" {
			panic("bad stage")
		}
		return map[string]any{"sku": p.SKU, "price": p.Price}, nil
	})
	out := &memory{fail: func(it any) error {
		if it.(map[string]any)["sku"] == "full" {
			return errors.New("disk full")
		}
		if it.(map[string]any)["sku"] == "crash" {
			panic("bad exporter")
		}
		return nil
	}}
	other := &memory{}
	s := pipeline.NewSink([]pipeline.Stage{price, wrap}, []pipeline.Exporter{out, other}, nil)
	ctx := context.Background()

	if got, err := s.Put(ctx, product{"a", 3}); err != nil || got.(map[string]any)["price"] != 6 {
		t.Fatalf("Put(a) = %v, %v; want the wrapped item with price 6", got, err)
	}
	var se *pipeline.StageError
	var drop *pipeline.DropError
	if _, err := s.Put(ctx, product{"b", 0}); !errors.As(err, &se) || se.Stage != 0 || !errors.As(err, &drop) || drop.Reason != "no price" {
		t.Errorf("Put(b) = %v; want stage 0 dropping for no price", err)
	}
	if got, err := s.Put(ctx, product{"boom", 1}); !errors.As(err, &se) || se.Stage != 1 || !strings.Contains(err.Error(), "panicked") || got.(product).Price != 2 {
		t.Errorf("Put(boom) = %v, %v; want stage 1's recovered panic and the item stage 1 was given", got, err)
	}
	var ee *pipeline.ExportError
	for _, sku := range []string{"full", "crash"} {
		if _, err := s.Put(ctx, product{sku, 1}); !errors.As(err, &ee) {
			t.Errorf("Put(%s) = %v; want an export error", sku, err)
		}
	}
	want := "price:a wrap:a price:b price:boom wrap:boom price:full wrap:full price:crash wrap:crash"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("stages ran %s\nwant %s", got, want)
	}
	if len(out.got) != 1 || len(other.got) != 3 {
		t.Errorf("the exporters took %d and %d items; want 1 (a) and 3 (a, full, crash: one exporter's failure is not the other's)", len(out.got), len(other.got))
	}
	if err := s.Close(); err != nil || s.Close() != nil || out.closed != 1 || other.closed != 1 {
		t.Errorf("Close: %v; exporters closed %d and %d times, want once each", err, out.closed, other.closed)
	}
	if _, err := s.Put(ctx, product{"late", 1}); !errors.Is(err, pipeline.ErrClosed) {
		t.Errorf("Put after Close = %v; want ErrClosed", err)
	}
	if len(other.got) != 3 {
		t.Errorf("an item put after Close reached an exporter")
	}
}

type ctxKey struct{}

// TestSinkPassesTheContext: every stage gets the context Put was given,
// with the source WithSource put there.
func TestSinkPassesTheContext(t *testing.T) {
	var seen []any
	st := pipeline.StageFunc(func(ctx context.Context, it any) (any, error) {
		seen = append(seen, ctx.Value(ctxKey{}), pipeline.Source(ctx))
		return it, nil
	})
	s := pipeline.NewSink([]pipeline.Stage{st, st}, nil, nil)
	ctx := pipeline.WithSource(context.WithValue(context.Background(), ctxKey{}, "run"), "page")
	if _, err := s.Put(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 4 || seen[0] != "run" || seen[1] != "page" || seen[2] != "run" || seen[3] != "page" {
		t.Errorf("the stages saw %v; want the run's value and the source, twice", seen)
	}
	if pipeline.Source(context.Background()) != nil {
		t.Error("Source of a context without one is not nil")
	}
}

// TestDedupDropsRepeatedKeys: the second item with a key is dropped as a
// duplicate; items of other types pass.
func TestDedupDropsRepeatedKeys(t *testing.T) {
	out := &memory{}
	s := pipeline.NewSink([]pipeline.Stage{pipeline.Dedup(func(p product) string { return p.SKU })}, []pipeline.Exporter{out}, nil)
	var drops []string
	for _, it := range []any{product{"a", 1}, product{"b", 1}, product{"a", 2}, "a", "a"} {
		var d *pipeline.DropError
		if _, err := s.Put(context.Background(), it); errors.As(err, &d) {
			drops = append(drops, d.Reason)
		}
	}
	if len(out.got) != 4 || strings.Join(drops, ",") != "duplicate" {
		t.Errorf("exported %v, dropped %v; want 4 exported and one duplicate", out.got, drops)
	}
}

// TestTypedStageWarnings: a typed stage given its type's other pointer
// form is warned of once, at the first such item; Report warns of a
// stage no item matched, once, and not of one that matched or was
// warned of already.
func TestTypedStageWarnings(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	id := func(_ context.Context, p product) (product, error) { return p, nil }
	idp := func(_ context.Context, p *product) (*product, error) { return p, nil }
	s := pipeline.NewSink([]pipeline.Stage{
		pipeline.Typed(id),
		pipeline.Typed(func(_ context.Context, n int) (int, error) { return n, nil }),
		pipeline.Typed(idp),
	}, nil, logger)
	for range 3 {
		if _, err := s.Put(context.Background(), &product{"a", 1}); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(buf.String(), "is for pipeline_test.product but received a *pipeline_test.product"); n != 1 {
		t.Errorf("%d pointer-form warnings, want 1:\n%s", n, buf.String())
	}
	s.Report()
	s.Report()
	lines := strings.Count(buf.String(), "\n")
	if lines != 2 || !strings.Contains(buf.String(), "pipeline stage 1 for int matched none of the 3 items") ||
		!strings.Contains(buf.String(), "item_types=[*pipeline_test.product]") {
		t.Errorf("want two warnings (stage 0's form, stage 1's no match), got:\n%s", buf.String())
	}
}
