package sitemap

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
)

// urlset returns a sitemap of n URLs.
func urlset(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<urlset " + ns + ">\n")
	for i := range n {
		fmt.Fprintf(&b, "<url><loc>https://example.com/page/%d</loc><lastmod>2024-01-02</lastmod></url>\n", i)
	}
	b.WriteString("</urlset>\n")
	return b.Bytes()
}

func gz(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// gzipStream compresses what write writes, without holding it.
func gzipStream(t testing.TB, write func(w io.Writer)) []byte {
	t.Helper()
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	write(w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// repeat writes s over and over, at least total bytes, and returns how
// many it wrote.
func repeat(w io.Writer, s string, total int) int {
	chunk := []byte(strings.Repeat(s, max(64<<10/len(s), 1)))
	n := 0
	for n < total {
		w.Write(chunk)
		n += len(chunk)
	}
	return n
}

func TestMaxURLsDefault(t *testing.T) {
	got, rep := parseAll(t, urlset(DefaultMaxURLs+1))
	if len(got) != DefaultMaxURLs || rep.URLs != DefaultMaxURLs {
		t.Fatalf("delivered %d, counted %d, want %d", len(got), rep.URLs, DefaultMaxURLs)
	}
	if !rep.Truncated || rep.TruncatedBy != ProblemMaxURLs || rep.Err != nil {
		t.Fatalf("report %v", rep)
	}
	last := rep.Problems[len(rep.Problems)-1]
	if last.Kind != ProblemMaxURLs || last.Loc != "https://example.com/page/50000" {
		t.Fatalf("problem %v, want the 50,001st URL named", last)
	}
	if got[len(got)-1].Loc != "https://example.com/page/49999" {
		t.Fatalf("last delivered %q", got[len(got)-1].Loc)
	}
}

// allocated runs f and returns the bytes it allocated.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestGzipBomb(t *testing.T) {
	// 60 MiB of blank lines between two URLs: valid, and about 60 KiB
	// compressed.
	bomb := gzipStream(t, func(w io.Writer) {
		io.WriteString(w, "https://example.com/a\n")
		repeat(w, "\n", 60<<20)
		io.WriteString(w, "https://example.com/b\n")
	})
	if len(bomb) > 128<<10 {
		t.Fatalf("bomb is %d bytes compressed; want a small file", len(bomb))
	}
	var got []Entry
	var rep *Report
	alloc := allocated(func() {
		rep, _ = Parse(context.Background(), bytes.NewReader(bomb), func(e Entry) error {
			got = append(got, e)
			return nil
		})
	})
	if !rep.Compressed || !rep.Truncated || rep.TruncatedBy != ProblemMaxBytes || rep.Bytes != DefaultMaxBytes {
		t.Fatalf("report %v, %d bytes read", rep, rep.Bytes)
	}
	if len(got) != 1 || got[0].Loc != "https://example.com/a" {
		t.Fatalf("delivered %v", locs(got))
	}
	t.Logf("gzip bomb: %d bytes compressed, %d read, %d bytes allocated", len(bomb), rep.Bytes, alloc)
	if alloc > 2<<20 {
		t.Fatalf("allocated %d bytes parsing a bomb; want it bounded by buffers", alloc)
	}
}

func TestZerosBomb(t *testing.T) {
	bomb := gzipStream(t, func(w io.Writer) { repeat(w, "\x00", 60<<20) })
	_, rep := parseAll(t, bomb)
	if rep.Format != FormatUnknown || !errors.Is(rep.Err, ErrUnknownFormat) || rep.Bytes > 1<<20 {
		t.Fatalf("report %v after %d bytes", rep, rep.Bytes)
	}
}

func TestXMLBombLiveHeapFlat(t *testing.T) {
	// 200 bytes of markup repeated far past the byte limit.
	const unit = "<url><loc>https://example.com/page/repeated</loc><lastmod>2024-01-02T10:00:00Z</lastmod><changefreq>daily</changefreq><priority>0.5</priority></url>\n"
	bomb := gzipStream(t, func(w io.Writer) {
		io.WriteString(w, "<urlset "+ns+">")
		repeat(w, unit, 40<<20)
	})
	var base, peak uint64
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base = ms.HeapAlloc
	n := 0
	rep, err := Parse(context.Background(), bytes.NewReader(bomb), func(e Entry) error {
		n++
		if n%10_000 == 0 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
		return nil
	}, WithMaxBytes(8<<20), WithMaxURLs(1<<30))
	if err != nil || rep.TruncatedBy != ProblemMaxBytes || n < 50_000 {
		t.Fatalf("report %v, %d entries, err %v", rep, n, err)
	}
	growth := int64(peak) - int64(base)
	t.Logf("XML bomb: %d entries, live heap grew by %d bytes at most", n, growth)
	if growth > 4<<20 {
		t.Fatalf("live heap grew by %d bytes over %d entries", growth, n)
	}
}

func TestHostileXML(t *testing.T) {
	tests := []struct {
		name string
		doc  func(w io.Writer)
		kind ProblemKind
		urls int
	}{
		{"one endless text run", func(w io.Writer) {
			io.WriteString(w, "<urlset "+ns+"><url><loc>https://example.com/a</loc></url>")
			repeat(w, " ", 20<<20)
		}, ProblemTokenTooLarge, 1},
		{"one endless loc", func(w io.Writer) {
			io.WriteString(w, "<urlset "+ns+"><url><loc>https://example.com/a</loc></url><url><loc>https://example.com/")
			repeat(w, "a", 20<<20)
		}, ProblemTokenTooLarge, 1},
		{"one endless comment", func(w io.Writer) {
			io.WriteString(w, "<urlset "+ns+"><url><loc>https://example.com/a</loc></url><!--")
			repeat(w, "<<>>", 20<<20)
		}, ProblemTokenTooLarge, 1},
		{"endless attributes", func(w io.Writer) {
			io.WriteString(w, "<urlset "+ns+"><url><loc>https://example.com/a</loc></url><url")
			repeat(w, ` a="1"`, 20<<20)
		}, ProblemTokenTooLarge, 1},
		{"endless nesting", func(w io.Writer) {
			io.WriteString(w, "<urlset "+ns+"><url><loc>https://example.com/a</loc></url>")
			repeat(w, "<x>", 20<<20)
		}, ProblemTooDeep, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, rep := parseAll(t, gzipStream(t, tt.doc))
			if len(got) != tt.urls || rep.Err == nil || rep.Counts[tt.kind] != 1 {
				t.Fatalf("delivered %d, report %v, problems %v", len(got), rep, rep.Problems)
			}
			if rep.Bytes > 2<<20 {
				t.Fatalf("read %d bytes before stopping", rep.Bytes)
			}
		})
	}
}

func TestLongTextLine(t *testing.T) {
	doc := "https://example.com/" + strings.Repeat("a", 200_000) + "\nhttps://example.com/next\n"
	got, rep := parseAll(t, []byte(doc))
	if len(got) != 2 || got[0].Problem != ProblemLocTooLong || len(got[0].Loc) != DefaultMaxLocLength || got[1].Loc != "https://example.com/next" || got[1].Line != 2 {
		t.Fatalf("entries %d, %q %d, report %v", len(got), got[0].Problem, len(got[0].Loc), rep)
	}
}

func TestLocLengthCountsCharacters(t *testing.T) {
	loc := "https://example.com/" + strings.Repeat("é", 10) // 30 characters, 40 bytes
	got, _ := parseAll(t, []byte(loc+"\n"), WithMaxLocLength(30))
	if got[0].Problem != "" {
		t.Fatalf("a 30-character loc is within a limit of 30: %v", got[0].Detail)
	}
	got, _ = parseAll(t, []byte(loc+"\n"), WithMaxLocLength(29))
	if got[0].Problem != ProblemLocTooLong || got[0].Loc != loc[:len(loc)-2] {
		t.Fatalf("got %q %q", got[0].Problem, got[0].Loc)
	}
}

func TestGzip(t *testing.T) {
	plain := urlset(100)
	compressed := gz(t, plain)
	truncated := compressed[:len(compressed)/2]
	corrupt := bytes.Clone(compressed)
	for i := len(corrupt) / 2; i < len(corrupt)/2+50; i++ {
		corrupt[i] ^= 0x55
	}
	tests := []struct {
		name  string
		data  []byte
		opts  []Option
		urls  int // at least, for broken streams
		exact bool
		kind  ProblemKind
	}{
		{"gzip by content, no .gz name", compressed, nil, 100, true, ""},
		{"gzip with a .gz name", compressed, []Option{WithBase("https://example.com/s.xml.gz")}, 100, true, ""},
		{".gz name, body already decompressed", plain, []Option{WithBase("https://example.com/s.xml.gz")}, 100, true, ""},
		{"gzipped twice", gz(t, compressed), nil, 100, true, ""},
		{"gzipped text", gz(t, []byte("https://example.com/a\nhttps://example.com/b\n")), nil, 2, true, ""},
		{"truncated gzip", truncated, nil, 1, false, ProblemGzip},
		{"corrupt gzip", corrupt, nil, 1, false, ProblemGzip},
		{"bad gzip header", []byte{0x1f, 0x8b, 0xff, 0xff, 0xff}, nil, 0, true, ProblemGzip},
		{"gzip magic only", []byte{0x1f, 0x8b}, nil, 0, true, ProblemGzip},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, rep := parseAll(t, tt.data, tt.opts...)
			if tt.exact && len(got) != tt.urls || len(got) < tt.urls {
				t.Fatalf("delivered %d, want %d (exact %v); %v", len(got), tt.urls, tt.exact, rep)
			}
			if tt.kind == "" && (rep.Err != nil || len(rep.Problems) != 0) {
				t.Fatalf("report %v %v", rep, rep.Problems)
			}
			if tt.kind != "" && (rep.Err == nil || rep.Counts[tt.kind] != 1) {
				t.Fatalf("report %v %v, want %s", rep, rep.Problems, tt.kind)
			}
			if tt.name == "corrupt gzip" {
				return // corrupt data decompresses to garbage until the checksum fails
			}
			for i, e := range got {
				if want := fmt.Sprintf("https://example.com/page/%d", i); e.Kind == KindURL && strings.Contains(e.Loc, "/page/") && e.Loc != want {
					t.Fatalf("entry %d is %q, want %q", i, e.Loc, want)
				}
			}
			t.Logf("%d entries; %v", len(got), rep.Err)
		})
	}
}

// failingReader returns data, then err.
type failingReader struct {
	data []byte
	err  error
}

func (f *failingReader) Read(b []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(b, f.data)
	f.data = f.data[n:]
	return n, nil
}

func TestReadError(t *testing.T) {
	netErr := errors.New("connection reset")
	for _, data := range [][]byte{urlset(100)[:3000], gz(t, urlset(100))[:400]} {
		var n int
		rep, err := Parse(context.Background(), &failingReader{data: data, err: netErr}, func(Entry) error { n++; return nil })
		if err != nil || !errors.Is(rep.Err, netErr) || rep.Counts[ProblemRead] != 1 || n == 0 {
			t.Fatalf("err %v, report %v, %d entries", err, rep, n)
		}
	}
}

func TestVisitErrorStops(t *testing.T) {
	stop := errors.New("enough")
	n := 0
	rep, err := Parse(context.Background(), bytes.NewReader(urlset(10)), func(Entry) error {
		n++
		if n == 3 {
			return stop
		}
		return nil
	})
	if err != stop || n != 3 || rep.Entries != 3 {
		t.Fatalf("err %v after %d entries", err, n)
	}
}

func TestContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep, err := Parse(ctx, bytes.NewReader(urlset(10)), func(Entry) error { t.Fatal("visited"); return nil })
	if !errors.Is(err, context.Canceled) || rep == nil {
		t.Fatalf("err %v", err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	n := 0
	_, err = Parse(ctx, bytes.NewReader(urlset(5000)), func(Entry) error {
		n++
		if n == 100 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || n >= 5000 {
		t.Fatalf("err %v after %d entries", err, n)
	}
}

func TestHostileLatin1(t *testing.T) {
	// A charset conversion must not blind the bound on one token: 4 MiB
	// of converted text in small tokens, then one endless token.
	var prefix int
	doc := gzipStream(t, func(w io.Writer) {
		head := `<?xml version="1.0" encoding="ISO-8859-1"?><urlset ` + ns + `><url><loc>https://example.com/a</loc></url>`
		small := "<x>" + strings.Repeat("\xe9", 1000) + "</x>"
		io.WriteString(w, head)
		prefix = len(head) + repeat(w, small, 4<<20)
		repeat(w, "\xe9", 20<<20)
	})
	got, rep := parseAll(t, doc)
	if len(got) != 1 || rep.Counts[ProblemTokenTooLarge] != 1 || rep.Bytes > int64(prefix)+maxTokenBytes+64<<10 {
		t.Fatalf("delivered %d, report %v after %d bytes (%d before the endless token)", len(got), rep, rep.Bytes, prefix)
	}
}
