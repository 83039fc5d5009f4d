package ui

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"
	"time"
)

// The charts are SVG written here, on the server: no script draws them,
// and every text in them is escaped.

const (
	chartW = 600
	chartH = 200
	padL   = 46
	padR   = 12
	padT   = 12
	padB   = 28
)

func esc(s string) string { return template.HTMLEscapeString(s) }

// svgOpen starts a figure with its accessible name.
func svgOpen(b *strings.Builder, w, h int, label string) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" role="img" aria-label="%s"><title>%s</title>`, w, h, esc(label), esc(label))
}

// niceMax rounds up to 1, 2 or 5 times a power of ten.
func niceMax(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

func num(v float64) string {
	switch {
	case v >= 100 || v == math.Trunc(v):
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// rateChart plots pages per second over the last minute.
func rateChart(pts []RatePoint) template.HTML {
	var b strings.Builder
	top := 0.0
	for _, p := range pts {
		top = max(top, p.Rate)
	}
	top = niceMax(top)
	last := 0.0
	if len(pts) > 0 {
		last = pts[len(pts)-1].Rate
	}
	svgOpen(&b, chartW, chartH, fmt.Sprintf("Pages per second over the last minute; latest %s", num(last)))
	iw, ih := float64(chartW-padL-padR), float64(chartH-padT-padB)
	x := func(ago float64) float64 { return padL + iw*(1-math.Min(ago, 60)/60) }
	y := func(r float64) float64 { return padT + ih*(1-r/top) }
	for i := 0; i <= 4; i++ {
		v := top * float64(i) / 4
		fmt.Fprintf(&b, `<line class="grid" x1="%d" x2="%d" y1="%.1f" y2="%.1f"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`,
			padL, chartW-padR, y(v), y(v), padL-4, y(v)+4, num(v))
	}
	for _, s := range []float64{60, 45, 30, 15, 0} {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`, x(s), chartH-8, map[bool]string{true: "now", false: fmt.Sprintf("−%.0fs", s)}[s == 0])
	}
	fmt.Fprintf(&b, `<line class="axis" x1="%d" x2="%d" y1="%.1f" y2="%.1f"/>`, padL, chartW-padR, y(0), y(0))
	if len(pts) > 0 {
		var path strings.Builder
		for i, p := range pts {
			cmd := "L"
			if i == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&path, "%s%.1f %.1f ", cmd, x(p.Ago), y(p.Rate))
		}
		d := strings.TrimSpace(path.String())
		fmt.Fprintf(&b, `<path class="area" d="%s L%.1f %.1f L%.1f %.1f Z"/>`, d, x(pts[len(pts)-1].Ago), y(0), x(pts[0].Ago), y(0))
		fmt.Fprintf(&b, `<path class="plot" d="%s"/>`, d)
	} else {
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">no samples yet</text>`, chartW/2, chartH/2)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// bar is one bar of a bar chart.
type bar struct {
	Label string
	Value int64
	Class string
}

// barChart draws skip reasons as horizontal bars.
func barChart(rs []ReasonCount) template.HTML {
	bars := make([]bar, len(rs))
	for i, r := range rs {
		cls := ""
		if strings.HasPrefix(string(r.Reason), "robots") {
			cls = "robots"
		}
		bars[i] = bar{string(r.Reason), r.Count, cls}
	}
	return hbars(bars, "Skip-log records by reason", "no URL skipped yet")
}

func hbars(bars []bar, label, empty string) template.HTML {
	var b strings.Builder
	const rowH, labelW = 24, 170
	h := max(2, len(bars))*rowH + 16
	var total int64
	var top int64 = 1
	for _, br := range bars {
		top = max(top, br.Value)
		total += br.Value
	}
	svgOpen(&b, chartW, h, fmt.Sprintf("%s: %d in all", label, total))
	if len(bars) == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s</text>`, chartW/2, h/2, esc(empty))
	}
	iw := float64(chartW - labelW - 70)
	for i, br := range bars {
		y := 8 + i*rowH
		w := math.Max(1, iw*float64(br.Value)/float64(top))
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text><rect class="bar %s" x="%d" y="%d" width="%.1f" height="%d"><title>%s: %d</title></rect><text x="%.1f" y="%d">%d</text>`,
			labelW-6, y+15, esc(br.Label), esc(br.Class), labelW, y+3, w, rowH-8, esc(br.Label), br.Value, float64(labelW)+w+5, y+15, br.Value)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// maxLanes is how many hosts the timeline draws.
const maxLanes = 12

// timelineChart draws each host's latest request starts on one time axis,
// so that the spacing kept shows at a glance: one lane per host, a tick per
// start, the least gap beside the interval in force.
func timelineChart(auths []AuthorityView, now time.Time) template.HTML {
	lanes := make([]AuthorityView, 0, len(auths))
	for _, a := range auths {
		if len(a.Starts) > 0 {
			lanes = append(lanes, a)
		}
	}
	slices.SortFunc(lanes, func(a, b AuthorityView) int { return b.Starts[len(b.Starts)-1].Compare(a.Starts[len(a.Starts)-1]) })
	lanes = lanes[:min(len(lanes), maxLanes)]
	slices.SortFunc(lanes, func(a, b AuthorityView) int { return strings.Compare(a.Authority, b.Authority) })
	const laneH, labelW, gapW, width = 26, 150, 200, 800
	h := max(1, len(lanes))*laneH + 36
	var b strings.Builder
	svgOpen(&b, width, h, "Request starts per host: each tick is a request; the least gap is never below the interval")
	if len(lanes) == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">no request starts recorded (the crawl keeps them with crawler.WithStartLog)</text></svg>`, width/2, h/2)
		return template.HTML(b.String())
	}
	// The window ends at now (or the last start, for a finished crawl)
	// and spans the oldest start shown, at least 5 s and at most 60 s.
	end := now
	var first time.Time
	for _, l := range lanes {
		if last := l.Starts[len(l.Starts)-1]; last.After(end) {
			end = last
		}
		if first.IsZero() || l.Starts[0].Before(first) {
			first = l.Starts[0]
		}
	}
	span := min(max(end.Sub(first), 5*time.Second), time.Minute)
	start := end.Add(-span)
	iw := float64(width - labelW - gapW - 10)
	x := func(t time.Time) float64 { return float64(labelW) + iw*float64(t.Sub(start))/float64(span) }
	for i, l := range lanes {
		y := 8 + i*laneH
		label := l.Authority
		if len(label) > 24 {
			label = "…" + label[len(label)-23:]
		}
		fmt.Fprintf(&b, `<g class="lane-row" data-authority="%s"><rect class="lane" x="%d" y="%d" width="%.0f" height="%d"/><text x="%d" y="%d" text-anchor="end">%s</text>`,
			esc(l.Authority), labelW, y, iw, laneH-6, labelW-6, y+14, esc(label))
		iv := time.Duration(l.Interval * float64(time.Second))
		for j, t := range l.Starts {
			if t.Before(start) {
				continue
			}
			cls := "tick"
			if j > 0 && iv > 0 && t.Sub(l.Starts[j-1]) < iv {
				cls = "tick close" // never expected: a gap below the interval
			}
			fmt.Fprintf(&b, `<line class="%s" x1="%.1f" x2="%.1f" y1="%d" y2="%d"/>`, cls, x(t), x(t), y+2, y+laneH-8)
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d">min gap %s s · interval %s s</text></g>`, width-gapW, y+14, num(l.MinGap), num(l.Interval))
	}
	ay := 8 + len(lanes)*laneH + 4
	for i := 0; i <= 4; i++ {
		t := start.Add(span * time.Duration(i) / 4)
		label := "−" + num(end.Sub(t).Seconds()) + " s"
		if i == 4 {
			label = "now"
			if !end.Equal(now) {
				label = end.Format("15:04:05")
			}
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`, x(t), ay+12, label)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
