package durable

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

// rewrite opens the store at path directly and sets key to value.
func rewrite(t *testing.T, path string, key, value []byte) {
	t.Helper()
	db, err := openStore(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Set(key, value, pebble.Sync); err != nil {
		t.Fatal(err)
	}
	db.Close()
}

func TestFormatChecks(t *testing.T) {
	for _, tt := range []struct {
		name       string
		key, value []byte
		version    uint64
		reason     string
	}{
		{"newer version", []byte{prefixVersion}, append([]byte(formatMagic), FormatVersion+1), FormatVersion + 1, ""},
		{"bad magic", []byte{prefixVersion}, []byte("something else"), 0, "bad magic"},
		{"damaged order", []byte{prefixConfig}, []byte{7}, 0, "order"},
		{"damaged counters", []byte{prefixCounters}, []byte{0x80}, 0, "counters"},
		{"damaged authority", authorityKey(3), []byte{0xff}, 0, "authority"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state")
			f, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
			rewrite(t, path, tt.key, tt.value)
			_, err = Open(path)
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Version != tt.version || !strings.Contains(err.Error(), tt.reason) {
				t.Fatalf("Open = %v; want a *FormatError with version %d mentioning %q", err, tt.version, tt.reason)
			}
		})
	}
}

func TestNotAHeedState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other")
	rewrite(t, path, []byte("unrelated"), []byte("data"))
	_, err := Open(path)
	var fe *FormatError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "not a heed frontier state") {
		t.Fatalf("Open of another Pebble store = %v; want a *FormatError", err)
	}
	if _, err := OpenReader(path); !errors.As(err, &fe) {
		t.Fatalf("OpenReader of another Pebble store = %v; want a *FormatError", err)
	}
}
