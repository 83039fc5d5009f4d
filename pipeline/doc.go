// Package pipeline owns heed's item pipeline: the stages an item emitted
// by a spider passes (Stage, StageFunc, Typed, Dedup; Drop to drop one
// with a reason) and the Sink that runs them and hands what survives to
// the Exporters.
//
// The model is Scrapy's item pipelines. An item is any Go value. A Sink
// takes it through its stages in order; each stage returns the item (the
// same value or a new one, of any type), drops it with an error made by
// Drop, or fails with any other error; an item that passed every stage
// goes to each exporter, one item at a time. Typed makes a stage of a
// function of one item type, so stages for several item types compose:
// items of the other types pass it untouched. Because an item of the
// other pointer form (a *P reaching a stage for P) would pass such a
// stage silently, the Sink watches what reaches each typed stage and
// warns on its logger, once per stage: at the first item in the other
// pointer form, and, in Report, of a stage that items reached and none
// matched.
//
// The contract: Put may be called from several goroutines at once; the
// stages then run concurrently (a stage with state guards it), the
// exporters never do. A stage or an exporter that panics is recovered:
// the panic costs that item, returned as an error, never the caller. Put
// returns why an item did not reach the exporters as a *StageError (with
// the stage's index and its error: a *DropError for a drop) or an
// *ExportError, and ErrClosed once Close has run; nothing is counted or
// logged here but the typed-stage warnings: the caller (heed's crawler)
// counts, logs and signals each outcome. The context Put is given reaches
// every stage; WithSource and Source carry the page an item came from in
// it.
//
// The limits: the Sink holds no queue, so a slow exporter slows the
// goroutines that Put; Dedup keeps every key it has seen in memory for
// the life of its stage; the typed-stage report names at most four
// unmatched item types per stage. Formats and files (JSON Lines, JSON,
// CSV, feed.Open) are package feed's; counting, the hooks and the skip
// log are the crawler's.
package pipeline
