package crawler

import (
	"mime"
	"net/http"
	"strings"
	"testing"

	"github.com/heedcrawl/heed/middleware"
)

// mediaTypeByMime is mediaType as mime.ParseMediaType reads it, falling
// back to the text before ';' when it refuses the value.
func mediaTypeByMime(ct string) string {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		mt, _, _ = strings.Cut(ct, ";")
	}
	return strings.ToLower(strings.TrimSpace(mt))
}

var mediaTypes = []string{
	"text/html", "text/html; charset=utf-8", "TEXT/HTML ; Charset=UTF-8", " application/xhtml+xml ",
	"text/html;", "text/html; charset", "text/html; charset=\"unterminated", "text/html; a=1; a=2",
	"text/html; title*=UTF-8''%e2%82%ac", ";charset=utf-8", "", "html", "text/ html", "text/xml;;",
	"application/rss+xml; charset=ISO-8859-1", "\u00a0text/html", "text/h\xfftml", "İmage/PNG",
}

// TestMediaType: the media type heed dispatches on is the one
// mime.ParseMediaType gives (or, where it refuses the header, the text
// before the parameters), without parsing the parameters.
func TestMediaType(t *testing.T) {
	for _, ct := range mediaTypes {
		mr := &middleware.Response{Header: http.Header{"Content-Type": {ct}}, Body: []byte("<html><body>x</body></html>")}
		want := mediaTypeByMime(ct)
		if ct == "" {
			want = "text/html"
		}
		if got := mediaType(mr); got != want {
			t.Errorf("Content-Type %q: %q, want %q", ct, got, want)
		}
	}
}

// FuzzMediaType compares mediaType with mime.ParseMediaType's reading on
// any Content-Type.
func FuzzMediaType(f *testing.F) {
	for _, ct := range mediaTypes {
		f.Add(ct)
	}
	f.Fuzz(func(t *testing.T, ct string) {
		if ct == "" || strings.ContainsAny(ct, "\r\n") {
			return
		}
		mr := &middleware.Response{Header: http.Header{"Content-Type": {ct}}}
		if got, want := mediaType(mr), mediaTypeByMime(ct); got != want {
			t.Errorf("Content-Type %q: %q, want %q", ct, got, want)
		}
	})
}

// BenchmarkMediaType reads the media type of a page as dispatch does.
func BenchmarkMediaType(b *testing.B) {
	mr := &middleware.Response{Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}}
	b.ReportAllocs()
	for b.Loop() {
		if mediaType(mr) != "text/html" {
			b.Fatal("not html")
		}
	}
}
