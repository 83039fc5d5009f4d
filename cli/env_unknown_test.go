package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// A HEED_ variable that names no flag of any command is said on stderr,
// with the closest flag's variable when one is near; a variable of
// another command's flag, heed's test suites' own, and a name near no
// flag are not misspellings worth a guess.
func TestEnvUnknownWarns(t *testing.T) {
	site := fixtureSite(t)
	var out, errb bytes.Buffer
	a := New("heed", WithSpider(Pages()), WithOutput(&out, &errb))
	a.environ = func() []string {
		return []string{"HEED_MAX_PAGE=3", "HEED_AGNET=HeedBot", "HEED_STATE=/tmp/x", "HEED_REQUIRE_REDIS=1",
			"HEED_ZZZZZZZZZZZZ=1", "HOME=/root", "HEED_ROBOTS_GIVE_UP=1m", "HEEDLESS=1"}
	}
	code := a.Run(context.Background(), []string{"fetch", "--agent", "HeedBot", site.URL + "/products/1.html"})
	if code != 0 {
		t.Fatalf("fetch: exit %d\n%s", code, errb.String())
	}
	var warned []string
	for _, l := range strings.Split(errb.String(), "\n") {
		if strings.HasPrefix(l, "heed: warning: HEED_") {
			warned = append(warned, l)
		}
	}
	want := []string{
		"heed: warning: HEED_MAX_PAGE names no flag and is ignored (did you mean HEED_MAX_PAGES?)",
		"heed: warning: HEED_AGNET names no flag and is ignored (did you mean HEED_AGENT?)",
		"heed: warning: HEED_ZZZZZZZZZZZZ names no flag and is ignored",
	}
	if strings.Join(warned, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(warned, "\n"), strings.Join(want, "\n"))
	}
}
