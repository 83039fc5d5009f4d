package httpcache

import (
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

const key = "0123456789abcdef0123456789abcdef"

func put(t *testing.T, d *Dir, body string) *Entry {
	t.Helper()
	p, err := d.Create(key)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(p, body)
	e := &Entry{Method: "GET", URL: "http://a.example/", Status: 200, Header: http.Header{"X": {"1"}}, ReceivedAt: time.Unix(5, 0).UTC()}
	if err := p.Commit(e); err != nil {
		t.Fatal(err)
	}
	return e
}

func load(d *Dir) (*Entry, string, error) {
	e, rc, err := d.Load(key)
	if err != nil {
		return nil, "", err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	return e, string(b), err
}

func TestDirRoundTripAndAbort(t *testing.T) {
	d, _ := OpenDir(t.TempDir())
	if _, _, err := d.Load(key); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Load of nothing: %v; want ErrNotFound", err)
	}
	put(t, d, "first")
	p, _ := d.Create(key)
	io.WriteString(p, "second, abandoned")
	p.Abort()
	e, body, err := load(d)
	if err != nil || body != "first" || e.Header.Get("X") != "1" || e.BodySize != 5 {
		t.Fatalf("Load = %+v %q %v; want the first entry", e, body, err)
	}
	// Update keeps the body.
	e.Status = 203
	if err := d.Update(key, e); err != nil {
		t.Fatal(err)
	}
	if e, body, err := load(d); err != nil || e.Status != 203 || body != "first" {
		t.Fatalf("after Update: %+v %q %v", e, body, err)
	}
	if _, err := d.Create("../../etc"); err == nil {
		t.Error("a key that is not hex was accepted")
	}
}

func TestDirDamageIsRefused(t *testing.T) {
	for _, tt := range []struct {
		name   string
		damage func(meta, body string)
	}{
		{"body cut", func(_, body string) { os.WriteFile(body, []byte("fir"), 0o644) }},
		{"body changed", func(_, body string) { os.WriteFile(body, []byte("FIRST"), 0o644) }},
		{"body gone", func(_, body string) { os.Remove(body) }},
		{"meta garbage", func(meta, _ string) { os.WriteFile(meta, []byte("heed-httpcache 1\n{nope"), 0o644) }},
		{"meta other version", func(meta, _ string) { os.WriteFile(meta, []byte("heed-httpcache 9\n{}"), 0o644) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			d, _ := OpenDir(root)
			put(t, d, "first")
			dir := filepath.Join(root, key[:2])
			tt.damage(filepath.Join(dir, key+".meta"), filepath.Join(dir, key+".body"))
			if _, _, err := load(d); !errors.Is(err, ErrDamaged) {
				t.Fatalf("Load of a damaged entry: %v; want ErrDamaged", err)
			}
		})
	}
}

func FuzzDecodeMeta(f *testing.F) {
	e := &Entry{Method: "GET", URL: "http://a.example/", Status: 200, Header: http.Header{"A": {"b"}}}
	b, _ := encodeMeta(e)
	f.Add(b)
	f.Add([]byte("heed-httpcache 1\n{\"method\":\"GET\",\"url\":\"u\",\"status\":99}"))
	f.Add([]byte("heed-httpcache 1\nnull"))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := decodeMeta(b)
		if err != nil {
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("error %v does not wrap ErrDamaged", err)
			}
			return
		}
		if e.URL == "" || e.Status < 100 || e.BodySize < 0 || e.Header == nil {
			t.Fatalf("accepted an entry that breaks the contract: %+v", e)
		}
		e.Age(time.Now())
		e.varyMatches(http.Header{})
	})
}
