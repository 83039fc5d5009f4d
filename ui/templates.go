package ui

import (
	"fmt"
	"html/template"
	"io/fs"
	"strings"
	"time"

	"github.com/heedcrawl/heed/stats"
)

// pages are the templates that each make one page with layout.html.
var pages = []string{"message", "tester", "live", "skips", "job", "fleet"}

var funcs = template.FuncMap{
	"ago":      ago,
	"dur":      formatDuration,
	"when":     formatTime,
	"join":     strings.Join,
	"ints":     joinInts,
	"percent":  func(a, b int64) string { return percent(a, b) },
	"bytes":    stats.FormatBytes,
	"add":      func(a, b int) int { return a + b },
	"nonEmpty": func(s string) bool { return s != "" },
}

func parseTemplates() (map[string]*template.Template, error) {
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/parts.html")
	if err != nil {
		return nil, fmt.Errorf("ui: templates: %w", err)
	}
	out := make(map[string]*template.Template, len(pages))
	for _, p := range pages {
		t, err := base.Clone()
		if err == nil {
			_, err = t.ParseFS(templateFS, "templates/"+p+".html")
		}
		if err != nil {
			return nil, fmt.Errorf("ui: template %s: %w", p, err)
		}
		out[p] = t
	}
	return out, nil
}

// readFile reads an embedded asset (the report inlines them).
func readFile(name string) string {
	b, err := fs.ReadFile(staticFS, name)
	if err != nil {
		return ""
	}
	return string(b)
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.Local().Format("15:04:05.000")
}

func ago(t, now time.Time) string {
	if t.IsZero() {
		return "never"
	}
	d := now.Sub(t)
	if d < 0 {
		return "in " + formatDuration(-d)
	}
	return formatDuration(d) + " ago"
}

func formatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0"
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

func percent(a, b int64) string {
	if b <= 0 {
		return "0%"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}
