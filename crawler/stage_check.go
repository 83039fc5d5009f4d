package crawler

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
)

// A pipeline stage made by Stage passes items of other types untouched,
// so a stage written for Product while the spider emits *Product would
// be silently skipped by every item. The crawl watches what reaches each
// such stage and says it once: at the first item in the other pointer
// form, and at the end of the crawl for a stage that no item matched.

// typedPipeline is a stage that knows its item type (Stage's).
type typedPipeline interface {
	itemType() reflect.Type
}

// stageTally is what reached one typed stage in this crawl.
type stageTally struct {
	mu      sync.Mutex
	seen    int64
	matched int64
	types   []string // the item types seen that did not match
}

// maxTallyTypes bounds the unmatched types a tally names.
const maxTallyTypes = 4

// checkStage counts an item reaching stage i and warns, once per stage,
// when the item is the stage's type in the other pointer form.
func (r *run) checkStage(i int, p Pipeline, item any) {
	tp, ok := p.(typedPipeline)
	if !ok {
		return
	}
	want, got := tp.itemType(), reflect.TypeOf(item)
	matched := got != nil && got.AssignableTo(want)
	t := r.items.tally(i)
	t.mu.Lock()
	t.seen++
	if matched {
		t.matched++
	} else if name := typeName(got); len(t.types) < maxTallyTypes && !slices.Contains(t.types, name) {
		t.types = append(t.types, name)
	}
	t.mu.Unlock()
	if !matched && otherForm(want, got) && r.said.first(stageKey(i)) {
		r.cfg.logger.Warn(fmt.Sprintf("pipeline stage %d is for %s but received a %s: such items pass it untouched; write the stage for %s", i, want, got, got),
			"stage", i, "stage_type", want.String(), "item_type", got.String())
	}
}

// reportStages warns of each typed stage that items reached and none
// matched, unless checkStage said it already.
func (r *run) reportStages() {
	for i, p := range r.items.pipelines {
		tp, ok := p.(typedPipeline)
		if !ok {
			continue
		}
		t := r.items.tally(i)
		t.mu.Lock()
		seen, matched, types := t.seen, t.matched, slices.Clone(t.types)
		t.mu.Unlock()
		if seen == 0 || matched > 0 || !r.said.first(stageKey(i)) {
			continue
		}
		r.cfg.logger.Warn(fmt.Sprintf("pipeline stage %d for %s matched none of the %d items that reached it: they passed it untouched", i, tp.itemType(), seen),
			"stage", i, "stage_type", tp.itemType().String(), "items", seen, "item_types", types)
	}
}

// otherForm reports whether got is want's pointer type or want got's.
func otherForm(want, got reflect.Type) bool {
	if got == nil {
		return false
	}
	return got.Kind() == reflect.Pointer && got.Elem() == want ||
		want.Kind() == reflect.Pointer && want.Elem() == got
}

func typeName(t reflect.Type) string {
	if t == nil {
		return "nil"
	}
	return t.String()
}

// stageKey is the once-key of a stage's warning.
type stageKey int

// tally returns stage i's tally.
func (s *itemSink) tally(i int) *stageTally {
	s.tallyOnce.Do(func() { s.tallies = make([]stageTally, len(s.pipelines)) })
	return &s.tallies[i]
}
