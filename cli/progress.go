package cli

import (
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/term"
)

// The progress of a long command (crawl, inventory) is shown on stderr in
// one of two ways. On a terminal, a line redrawn in place every half
// second, cut to the terminal's width so that it never wraps: its fields
// have a priority, and when the line is too long they are first
// shortened, then dropped, least important first. Elsewhere (stderr
// redirected to a file, a service's journal), a "progress" log record
// every progressLogEvery, through the command's logger and in its format.
// Log records written while the line is shown clear it, are written, and
// the line is drawn again below them (liveTerm).

// progressLogEvery is how often progress is logged when stderr is not a
// terminal.
const progressLogEvery = 30 * time.Second

// progressField is one field of the progress: its key and value for a
// log record, its text on the line in full and short, and its priority
// (0 the most important; higher ones go first when the line is too long).
type progressField struct {
	key         string
	value       any
	full, short string
	prio        int
}

// The priorities the line gives up first: fields of shortenFirst and up
// are shortened, then fields of detailPrio and up dropped, before the
// others are touched.
const (
	shortenFirst = 3
	detailPrio   = 5
)

// fieldSep separates the fields on the line.
const fieldSep = "  "

// fitLine returns the fields on one line of at most width-1 columns (a
// terminal may wrap a line that fills its last column). While the line
// is too long it gives up detail, least important field first: the
// minor fields are shortened, then the detail fields dropped, then every
// field shortened, then dropped, and the most important one alone is cut
// to the width as a last resort.
func fitLine(fields []progressField, width int) string {
	limit := max(width-1, 1)
	keep := make([]bool, len(fields))
	short := make([]bool, len(fields))
	var order []int // the fields on the line, least important first
	for i, f := range fields {
		if keep[i] = f.full != ""; keep[i] { // else a field of the log records only
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return fields[b].prio - fields[a].prio })
	fits := func() (string, bool) {
		line := joinFields(fields, keep, short)
		return line, utf8.RuneCountInString(line) <= limit
	}
	line, ok := fits()
	// The detail fields (priority detailPrio and up) are shortened, then
	// dropped, before the main ones are shortened, then dropped.
	for _, step := range []struct {
		drop    bool
		minPrio int
	}{{false, shortenFirst}, {true, detailPrio}, {false, 0}, {true, 0}} {
		for n, i := range order {
			if ok {
				return line
			}
			switch {
			case fields[i].prio < step.minPrio:
			case step.drop && n < len(order)-1 && keep[i]:
				keep[i] = false
				line, ok = fits()
			case !step.drop && fields[i].short != "" && !short[i]:
				short[i] = true
				line, ok = fits()
			}
		}
	}
	if r := []rune(line); len(r) > limit {
		line = string(r[:limit])
	}
	return line
}

func joinFields(fields []progressField, keep, short []bool) string {
	var parts []string
	for i, f := range fields {
		switch {
		case !keep[i]:
		case short[i]:
			parts = append(parts, f.short)
		default:
			parts = append(parts, f.full)
		}
	}
	return strings.Join(parts, fieldSep)
}

// logArgs returns the fields as a log record's attributes.
func logArgs(fields []progressField) []any {
	args := make([]any, 0, 2*len(fields))
	for _, f := range fields {
		if f.key != "" {
			args = append(args, f.key, f.value)
		}
	}
	return args
}

// liveTerm is stderr shared by the log and the progress line: a log
// record written while the line is shown clears the line, is written,
// and the line is drawn again. It is safe for concurrent use.
type liveTerm struct {
	mu   sync.Mutex
	w    io.Writer
	line string // the line shown; "" for none
}

func newLiveTerm(w io.Writer) *liveTerm {
	if t, ok := w.(*liveTerm); ok {
		return t
	}
	return &liveTerm{w: w}
}

// clearLine is the terminal's carriage return and erase-line.
const clearLine = "\r\033[K"

func (t *liveTerm) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.line == "" {
		return t.w.Write(p)
	}
	if _, err := io.WriteString(t.w, clearLine); err != nil {
		return 0, err
	}
	n, err := t.w.Write(p)
	if err == nil {
		_, err = io.WriteString(t.w, t.line)
	}
	return n, err
}

// draw shows line in place of the one shown; "" clears it.
func (t *liveTerm) draw(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if line == "" && t.line == "" {
		return
	}
	io.WriteString(t.w, clearLine+line)
	t.line = line
}

// terminal reports whether the stderr under t is a terminal, and its
// width (0 when unknown).
func (t *liveTerm) terminal() (bool, int) {
	f, ok := t.w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return false, 0
	}
	w, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return true, 0
	}
	return true, w
}

// width is the width the line is cut to: the terminal's, else $COLUMNS,
// else 80.
func (t *liveTerm) width() int {
	if _, w := t.terminal(); w > 0 {
		return w
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 80
}

// progress is how a command shows its progress (--progress).
type progress struct {
	mode string       // auto, always, never
	term *liveTerm    // stderr
	log  *slog.Logger // the report logger (reportFlags.reportLogger)
	// logged says the periodic log records are kept already
	// (--stats-interval): auto mode away from a terminal adds none.
	logged bool
	// every is the log records' interval; progressLogEvery when 0.
	every time.Duration
}

// start shows fields(now) until the returned function is called: as a
// line on a terminal in "auto" mode and always in "always" mode, as log
// records away from a terminal in "auto" mode, never in "never" mode.
// Stopping clears the line; it is harmless more than once.
func (p progress) start(fields func(now time.Time) []progressField) (stop func()) {
	isTerm, _ := p.term.terminal()
	switch {
	case p.mode == "never":
		return func() {}
	case p.mode == "always" || isTerm:
		return everyInterval(500*time.Millisecond,
			func() { p.term.draw(fitLine(fields(time.Now()), p.term.width())) },
			func() { p.term.draw("") })
	case p.logged:
		return func() {}
	}
	every := p.every
	if every <= 0 {
		every = progressLogEvery
	}
	return everyInterval(every, func() { p.log.Info("progress", logArgs(fields(time.Now()))...) }, nil)
}

// everyInterval calls tick every interval in its own goroutine until the
// returned function is called; then it calls last (when not nil) and
// returns. Stopping more than once is harmless.
func everyInterval(interval time.Duration, tick, last func()) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				if last != nil {
					last()
				}
				return
			case <-t.C:
				tick()
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			wg.Wait()
		})
	}
}
