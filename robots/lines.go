package robots

// Lines returns the lines of body as Parse and Lint number them: split at
// CR, LF or CRLF, a byte-order mark dropped, only within the size limit
// (DefaultMaxBytes or WithMaxBytes), a line cut by the limit left out. Line
// n of a Rule, a Finding or a Verdict is Lines(body)[n-1], so a tool can
// show the file with its evidence in place. The lines do not include their
// ends.
func Lines(body []byte, opts ...Option) []string {
	cfg := newConfig(opts)
	data := body
	if len(data) > cfg.maxBytes {
		data = data[:cfg.maxBytes]
	}
	sc := lineScanner{s: skipBOM(string(data))}
	var out []string
	for {
		line, terminated, ok := sc.next()
		if !ok {
			return out
		}
		if !terminated && len(data) < len(body) && !isLineEnd(body[len(data)]) {
			return out // cut by the limit, as Parse drops it
		}
		out = append(out, line)
	}
}
