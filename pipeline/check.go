package pipeline

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
)

// A Typed stage passes items of other types untouched, so a stage
// written for P while the spider emits *P would be silently skipped by
// every item. The Sink watches what reaches each such stage and says it
// once: at the first item in the other pointer form, and in Report for a
// stage that no item matched.

// typedStage is a stage that knows its item type (Typed's).
type typedStage interface {
	itemType() reflect.Type
}

// check is what reached one typed stage.
type check struct {
	mu      sync.Mutex
	seen    int64
	matched int64
	types   []string // the item types seen that did not match
	warned  bool     // the stage's one warning was said
}

// maxCheckTypes bounds the unmatched types a check names.
const maxCheckTypes = 4

// check counts an item reaching stage i and warns, once per stage, when
// the item is the stage's type in the other pointer form.
func (s *Sink) check(i int, st Stage, item any) {
	ts, ok := st.(typedStage)
	if !ok {
		return
	}
	want, got := ts.itemType(), reflect.TypeOf(item)
	matched := got != nil && got.AssignableTo(want)
	c := &s.checks[i]
	c.mu.Lock()
	c.seen++
	if matched {
		c.matched++
	} else if name := typeName(got); len(c.types) < maxCheckTypes && !slices.Contains(c.types, name) {
		c.types = append(c.types, name)
	}
	warn := !matched && otherForm(want, got) && !c.warned
	if warn {
		c.warned = true
	}
	c.mu.Unlock()
	if warn {
		s.logger.Warn(fmt.Sprintf("pipeline stage %d is for %s but received a %s: such items pass it untouched; write the stage for %s", i, want, got, got),
			"stage", i, "stage_type", want.String(), "item_type", got.String())
	}
}

// Report warns of each typed stage that items reached and none matched,
// unless the stage was warned of already. A crawl calls it once, at its
// end.
func (s *Sink) Report() {
	for i, st := range s.stages {
		ts, ok := st.(typedStage)
		if !ok {
			continue
		}
		c := &s.checks[i]
		c.mu.Lock()
		seen, matched, types := c.seen, c.matched, slices.Clone(c.types)
		warn := seen > 0 && matched == 0 && !c.warned
		if warn {
			c.warned = true
		}
		c.mu.Unlock()
		if !warn {
			continue
		}
		s.logger.Warn(fmt.Sprintf("pipeline stage %d for %s matched none of the %d items that reached it: they passed it untouched", i, ts.itemType(), seen),
			"stage", i, "stage_type", ts.itemType().String(), "items", seen, "item_types", types)
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
