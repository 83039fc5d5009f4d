package heedtest_test

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// TestExamplesImportNoInternalPackage: the examples are programs a user
// copies, so neither they nor their tests import heed's internal
// packages; a local site comes from this package.
func TestExamplesImportNoInternalPackage(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports,TestImports,XTestImports", "github.com/heedcrawl/heed/examples/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	n := 0
	for {
		var p struct {
			ImportPath                         string
			Imports, TestImports, XTestImports []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		n++
		for _, imp := range append(append(p.Imports, p.TestImports...), p.XTestImports...) {
			if strings.HasPrefix(imp, "github.com/heedcrawl/heed/") && strings.Contains(imp, "/internal") {
				t.Errorf("%s imports %s", p.ImportPath, imp)
			}
		}
	}
	if n < 4 {
		t.Errorf("go list found %d examples", n)
	}
}
