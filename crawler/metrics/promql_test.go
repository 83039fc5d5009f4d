package metrics_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// promqlKeywords are PromQL's words that are not metric names when no
// parenthesis follows them.
var promqlKeywords = map[string]bool{
	"and": true, "or": true, "unless": true, "bool": true, "offset": true, "atan2": true,
	"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true,
	"inf": true, "nan": true, "start": true, "end": true,
	// aggregations, which may be followed by by or without first
	"sum": true, "avg": true, "min": true, "max": true, "count": true, "group": true, "stddev": true, "stdvar": true,
	"topk": true, "bottomk": true, "quantile": true, "count_values": true, "limitk": true, "limit_ratio": true,
}

// labelLists are the keywords whose parenthesis holds label names.
var labelLists = map[string]bool{"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true}

// promqlNames returns the metric names a PromQL expression selects, in
// order of first appearance: identifiers that are not functions,
// aggregations or keywords, outside label matchers, label lists, ranges
// and strings, plus the names {__name__="..."} matchers give. Grafana's
// variables ($x, ${x}, $__rate_interval) are skipped. An error says where
// the expression could not be read.
func promqlNames(expr string) ([]string, error) {
	var names []string
	add := func(n string) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	isStart := func(c byte) bool { return c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	isPart := func(c byte) bool { return isStart(c) || c >= '0' && c <= '9' }
	// str reads a quoted string at i and returns its end and contents.
	str := func(i int) (int, string, error) {
		q := expr[i]
		var b strings.Builder
		for j := i + 1; j < len(expr); j++ {
			switch c := expr[j]; {
			case c == q:
				return j + 1, b.String(), nil
			case c == '\\' && q != '`' && j+1 < len(expr):
				j++
				b.WriteByte(expr[j])
			default:
				b.WriteByte(c)
			}
		}
		return 0, "", fmt.Errorf("unterminated string at %d", i)
	}
	ident := func(i int) int {
		j := i
		for j < len(expr) && isPart(expr[j]) {
			j++
		}
		return j
	}
	next := func(i int) byte { // the next character that is not a space
		for ; i < len(expr); i++ {
			if c := expr[i]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
				return c
			}
		}
		return 0
	}
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			end, _, err := str(i)
			if err != nil {
				return nil, err
			}
			i = end
		case c == '$': // a Grafana variable
			i++
			if i < len(expr) && expr[i] == '{' {
				end := strings.IndexByte(expr[i:], '}')
				if end < 0 {
					return nil, fmt.Errorf("unterminated ${ at %d", i)
				}
				i += end + 1
			} else {
				i = ident(i)
			}
		case c == '[':
			end := strings.IndexByte(expr[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("unterminated [ at %d", i)
			}
			i += end + 1
		case c == '{': // label matchers: only __name__ names a metric
			j := i + 1
			for {
				for j < len(expr) && strings.IndexByte(" \t\n,", expr[j]) >= 0 {
					j++
				}
				if j >= len(expr) {
					return nil, fmt.Errorf("unterminated { at %d", i)
				}
				if expr[j] == '}' {
					j++
					break
				}
				var label string
				quoted := expr[j] == '"'
				if quoted {
					end, s, err := str(j)
					if err != nil {
						return nil, err
					}
					label, j = s, end
				} else if isStart(expr[j]) {
					end := ident(j)
					label, j = expr[j:end], end
				} else {
					return nil, fmt.Errorf("label name expected at %d", j)
				}
				op := 0
				for j < len(expr) && strings.IndexByte(" \t=!~", expr[j]) >= 0 {
					if expr[j] != ' ' && expr[j] != '\t' {
						op++
					}
					j++
				}
				if j >= len(expr) || (expr[j] != '"' && expr[j] != '\'' && expr[j] != '`') {
					if quoted && op == 0 && j < len(expr) && (expr[j] == ',' || expr[j] == '}') {
						add(label) // a quoted metric name, {"name"}
						continue
					}
					return nil, fmt.Errorf("label value expected at %d", j)
				}
				end, value, err := str(j)
				if err != nil {
					return nil, err
				}
				if label == "__name__" {
					add(value)
				}
				j = end
			}
			i = j
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(expr) && expr[i+1] >= '0' && expr[i+1] <= '9':
			for i < len(expr) && (isPart(expr[i]) || expr[i] == '.') {
				i++ // a number or a duration (offset 5m)
			}
		case isStart(c):
			end := ident(i)
			word := expr[i:end]
			i = end
			if next(i) == '(' {
				if labelLists[strings.ToLower(word)] {
					close := strings.IndexByte(expr[i:], ')')
					if close < 0 {
						return nil, fmt.Errorf("unterminated label list at %d", i)
					}
					i += close + 1
				}
				continue // a function, an aggregation, a label list
			}
			if !promqlKeywords[strings.ToLower(word)] {
				add(word)
			}
		default:
			i++
		}
	}
	return names, nil
}

func TestPromQLNames(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want []string
	}{
		{`heed_pages_total`, []string{"heed_pages_total"}},
		{`sum by (agent) (rate(heed_pages_total{agent=~"$agent"}[$__rate_interval]))`, []string{"heed_pages_total"}},
		{`sum(rate(x_total[5m])) by (reason, authority) / on(job) group_left(version) heed_build_info`, []string{"x_total", "heed_build_info"}},
		{`histogram_quantile(0.99, sum by (le) (rate(heed_request_duration_seconds_bucket{class!="error",x="a}b"}[1m])))`, []string{"heed_request_duration_seconds_bucket"}},
		{`a_sum / ignoring(class) b_count offset 5m > bool 0.5 and c unless d or e @ 1609746000`, []string{"a_sum", "b_count", "c", "d", "e"}},
		{`{__name__="by_name", job="x"} + {"quoted_name"} + topk(10, y) + inf`, []string{"by_name", "quoted_name", "y"}},
		{`label_replace(up, "dst", "$1", "src", "(.*)") * ${factor} + 1e3 + .5 + 0x1F`, []string{"up"}},
		{`sum without (instance) (m:recorded:rate5m)`, []string{"m:recorded:rate5m"}},
	} {
		got, err := promqlNames(tc.expr)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("promqlNames(%s) = %q, %v; want %q", tc.expr, got, err, tc.want)
		}
	}
	for _, bad := range []string{`x{a="b`, `rate(x[5m)`, `x{a=}`, `"open`, `sum by (a`} {
		if _, err := promqlNames(bad); err == nil {
			t.Errorf("promqlNames(%s): no error", bad)
		}
	}
}

// FuzzPromQLNames: any expression gives names or an error, never a
// panic, and every name returned is a word of the expression.
func FuzzPromQLNames(f *testing.F) {
	for _, s := range []string{`sum by (a) (rate(x{a="b"}[5m]))`, `{__name__="n"}`, `x offset 5m`, `$__x ${y}`, `{`, `"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		names, err := promqlNames(expr)
		if err != nil {
			return
		}
		for _, n := range names {
			if !strings.Contains(expr, n) && !strings.Contains(expr, `\`) {
				t.Errorf("%q: name %q is not in the expression", expr, n)
			}
		}
	})
}
