package benchkit

import (
	"fmt"
	"io"
	"strings"
)

// TableHeader writes the first two lines of a Markdown table: the column
// names, then the delimiter row. align gives each column's alignment, one
// byte a column: 'r' right-aligns it (figures), anything else leaves it
// as the renderer likes; columns past the end of align are left so too.
// The rows are the caller's, one "| a | b |" line each.
func TableHeader(w io.Writer, align string, cols ...string) {
	var head, delim strings.Builder
	head.WriteString("|")
	delim.WriteString("|")
	for i, c := range cols {
		fmt.Fprintf(&head, " %s |", c)
		if i < len(align) && align[i] == 'r' {
			delim.WriteString("---:|")
		} else {
			delim.WriteString("---|")
		}
	}
	fmt.Fprintln(w, head.String())
	fmt.Fprintln(w, delim.String())
}
