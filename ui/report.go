package ui

import (
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/heedcrawl/heed/inventory"
	"github.com/heedcrawl/heed/skiplog"
)

// InventoryReport collects what the inventory's HTML report needs from
// its rows as they stream by: the lastmod of each (by month), and the
// sitemaps that listed them. It keeps counts, never the rows, so a
// report of millions of URLs costs what one of a thousand does; the lists
// of disallowed and duplicate URLs come from the InventorySummary, which
// bounds them. An inventory of several agents (inventory.NewForAgents)
// is reported for all of them: each agent's counts, and the URLs some
// agent may not fetch (the first maxListed) with every agent's verdict.
// Use it as (or from) the inventory's visit function, then Write it with
// the summary.
type InventoryReport struct {
	agents   []string
	months   map[string]int // "2025-01" → rows with that lastmod
	noDate   int
	badDate  int
	rows     int
	allowed  int
	problems int
	// refused lists the rows some agent may not fetch, with every agent's
	// verdict (the first maxListed; refusedAll counts them all), for an
	// inventory of several agents.
	refused    []inventory.Row
	refusedAll int
}

// maxListed is how many URLs the report lists one by one, as the
// inventory's summary does.
const maxListed = 10_000

// NewInventoryReport returns an empty report of an inventory made for
// the product tokens agents (inventory.Inventory.Agents), its own first.
func NewInventoryReport(agents ...string) *InventoryReport {
	return &InventoryReport{agents: agents, months: map[string]int{}}
}

// Add counts one row.
func (r *InventoryReport) Add(row inventory.Row) {
	r.rows++
	if row.Allowed {
		r.allowed++
	}
	if row.Problem != "" {
		r.problems++
	}
	if slices.ContainsFunc(row.Verdicts, refused) {
		if r.refusedAll++; len(r.refused) < maxListed {
			r.refused = append(r.refused, row)
		}
	}
	switch t, ok := parseLastMod(row.LastMod); {
	case row.LastModInvalid || row.LastMod != "" && !ok:
		r.badDate++
	case row.LastMod == "":
		r.noDate++
	default:
		r.months[t.UTC().Format("2006-01")]++
	}
}

// refused reports whether robots.txt refuses the agent the URL (disallowed
// or unreachable), as the summary's Disallowed counts.
func refused(v inventory.Verdict) bool {
	return v.Reason == skiplog.RobotsDisallow || v.Reason == skiplog.RobotsUnreachable
}

// lastModLayouts are the W3C Datetime forms sitemaps use.
var lastModLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02", "2006-01", "2006", "2006-01-02T15:04:05", "2006-01-02 15:04:05"}

func parseLastMod(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, l := range lastModLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// reportData is what report.html gets.
type reportData struct {
	Agent     string   // the inventory's own
	Agents    []string // every agent, the inventory's own first
	Generated time.Time
	S         *inventory.Summary
	Rows      int
	Allowed   int
	Problems  int
	NoDate    int
	BadDate   int
	LastMod   template.HTML
	Sitemaps  []inventory.Sitemap
	// Cross are the duplicates listed by two sitemaps; Same counts the
	// URLs one sitemap lists twice.
	Cross []inventory.Duplicate
	Same  int
	// Refused are the rows some agent may not fetch (of an inventory of
	// several agents), RefusedAll how many there are.
	Refused    []inventory.Row
	RefusedAll int
	Style      template.CSS
}

// Write writes the report as one self-contained HTML file: its style
// inlined, its charts SVG, no script, and a policy that forbids loading
// anything at all, so it opens the same from a disk, a mail or an archive.
func (r *InventoryReport) Write(w io.Writer, sum *inventory.Summary) error {
	t, err := template.New("report.html").Funcs(funcs).ParseFS(templateFS, "templates/report.html", "templates/parts.html")
	if err != nil {
		return fmt.Errorf("ui: report template: %w", err)
	}
	d := reportData{
		Agents: r.agents, Refused: r.refused, RefusedAll: r.refusedAll, Generated: time.Now().UTC(), S: sum, Rows: r.rows, Allowed: r.allowed,
		Problems: r.problems, NoDate: r.noDate, BadDate: r.badDate,
		LastMod: lastModChart(r.months),
		Style:   template.CSS(readFile("static/style.css")),
	}
	if len(r.agents) > 0 {
		d.Agent = r.agents[0]
	}
	d.Sitemaps = sum.Sitemaps
	for _, dup := range sum.DuplicateURLs {
		if dup.First == dup.Again {
			d.Same++
			continue
		}
		d.Cross = append(d.Cross, dup)
	}
	if err := t.Execute(w, d); err != nil {
		return fmt.Errorf("ui: report: %w", err)
	}
	return nil
}

// lastModChart draws rows per lastmod month (per year past five years of
// months), oldest left.
func lastModChart(months map[string]int) template.HTML {
	keys := make([]string, 0, len(months))
	for k := range months {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	type col struct {
		label string
		n     int
	}
	var cols []col
	if len(keys) > 60 {
		years := map[string]int{}
		for k, n := range months {
			years[k[:4]] += n
		}
		ys := make([]string, 0, len(years))
		for y := range years {
			ys = append(ys, y)
		}
		slices.Sort(ys)
		for _, y := range ys {
			cols = append(cols, col{y, years[y]})
		}
	} else {
		for _, k := range keys {
			cols = append(cols, col{k, months[k]})
		}
	}
	var b strings.Builder
	total, top := 0, 1
	for _, c := range cols {
		total += c.n
		top = max(top, c.n)
	}
	svgOpen(&b, chartW, chartH, fmt.Sprintf("URLs by lastmod: %d dated URLs in %d periods", total, len(cols)))
	if len(cols) == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">no URL has a lastmod</text></svg>`, chartW/2, chartH/2)
		return template.HTML(b.String())
	}
	iw, ih := float64(chartW-padL-padR), float64(chartH-padT-padB)
	bw := iw / float64(len(cols))
	// Counts: ticks on whole numbers.
	topF := max(4, niceMax(float64(top)))
	steps := 4
	if int(topF)%5 == 0 {
		steps = 5
	}
	for i := 0; i <= steps; i++ {
		v := topF * float64(i) / float64(steps)
		y := padT + ih*(1-v/topF)
		fmt.Fprintf(&b, `<line class="grid" x1="%d" x2="%d" y1="%.1f" y2="%.1f"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`, padL, chartW-padR, y, y, padL-4, y+4, num(v))
	}
	every := max(1, len(cols)/8)
	for i, c := range cols {
		h := ih * float64(c.n) / topF
		x := padL + bw*float64(i)
		fmt.Fprintf(&b, `<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s: %d</title></rect>`, x+1, padT+ih-h, max(1, bw-2), h, esc(c.label), c.n)
		if i%every == 0 {
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`, x+bw/2, chartH-8, esc(c.label))
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
