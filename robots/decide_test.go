package robots

import (
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

type decideCase struct {
	token, path string
	allowed     bool
	line        int // deciding rule's line; 0 for none
}

func runDecide(t *testing.T, body string, cases []decideCase) {
	t.Helper()
	f := Parse([]byte(body))
	for _, c := range cases {
		v := f.Group(c.token).Decide(c.path)
		line := 0
		if v.Rule != nil {
			line = v.Rule.Line
		}
		if v.Allowed != c.allowed || line != c.line {
			t.Errorf("%s %q: allowed=%v line=%d, want allowed=%v line=%d (%v)", c.token, c.path, v.Allowed, line, c.allowed, c.line, v)
		}
	}
}

func TestGroupSelection(t *testing.T) {
	t.Run("whole token", func(t *testing.T) {
		runDecide(t, "User-agent: Scoutbot\nDisallow: /\n", []decideCase{
			{"Scout", "/x", true, 0},
			{"Scoutbot", "/x", false, 2},
			{"scoutBOT", "/x", false, 2},
			{"Scoutbotx", "/x", true, 0},
		})
		runDecide(t, "User-agent: Scout\nDisallow: /\n", []decideCase{
			{"Scoutbot", "/x", true, 0},
			{"Scout", "/x", false, 2},
		})
	})
	t.Run("value up to the first non-token character", func(t *testing.T) {
		runDecide(t, "User-agent: FooBot/1.2\nDisallow: /a\nUser-agent: Foo Bar\nDisallow: /b\n", []decideCase{
			{"FooBot", "/a", false, 2},
			{"Foo", "/b", false, 4},
			{"Bar", "/b", true, 0},
		})
	})
	t.Run("named groups merge, named replaces star", func(t *testing.T) {
		body := "User-agent: *\nDisallow: /search/\nDisallow: /account/\n\nUser-agent: Googlebot\nDisallow: /drafts/\n\nUser-agent: googlebot\nDisallow: /more/\n"
		runDecide(t, body, []decideCase{
			{"Googlebot", "/search/x", true, 0},
			{"Googlebot", "/drafts/x", false, 6},
			{"Googlebot", "/more/x", false, 9},
			{"Other", "/search/x", false, 2},
			{"Other", "/drafts/x", true, 0},
		})
	})
	t.Run("star groups merge", func(t *testing.T) {
		runDecide(t, "User-agent: *\nDisallow: /a\nUser-agent: x\nDisallow: /\nUser-agent: *\nDisallow: /b\n", []decideCase{
			{"y", "/a", false, 2},
			{"y", "/b", false, 6},
			{"y", "/c", true, 0},
		})
	})
	t.Run("no match and no star", func(t *testing.T) {
		f := Parse([]byte("User-agent: FooBot\nDisallow: /\n"))
		g := f.Group("BarBot")
		if m := g.Match(); m.Kind != MatchNone || len(m.Agents) != 0 {
			t.Fatalf("Match = %+v", m)
		}
		if v := g.Decide("/x"); !v.Allowed || v.Rule != nil {
			t.Fatalf("Decide = %+v", v)
		}
	})
	t.Run("invalid tokens select only star", func(t *testing.T) {
		body := "User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n"
		for _, tok := range []string{"Foo Bar", "", "Foo/1.0", "*"} {
			g := Parse([]byte(body)).Group(tok)
			if g.Match().Kind != MatchStar {
				t.Errorf("Group(%q).Match() = %+v, want star", tok, g.Match())
			}
		}
		if g := Parse([]byte("User-agent: FooBot\nDisallow: /\n")).Group(""); g.Match().Kind != MatchNone {
			t.Errorf("empty token matched %+v", g.Match())
		}
	})
	t.Run("agent names with digits match as a whole token", func(t *testing.T) {
		body := "User-agent: *\nAllow: /\nUser-agent: MJ12bot\nDisallow: /mj/\nUser-agent: 360Spider/1.0\nDisallow: /s/\n"
		runDecide(t, body, []decideCase{
			{"MJ12bot", "/mj/x", false, 4},
			{"mj12BOT", "/mj/x", false, 4},
			{"MJ", "/mj/x", true, 2},   // Google reads the line as "MJ"; heed does not
			{"MJ12", "/mj/x", true, 2}, // not a prefix match
			{"360Spider", "/s/x", false, 6},
			{"360spider", "/s/y", false, 6},
			{"Spider", "/s/x", true, 2},
		})
		if g := Parse([]byte(body)).Group("MJ12bot"); g.Match().Kind != MatchNamed || g.Match().Agents[0].Token != "MJ12bot" {
			t.Errorf("MJ12bot: %+v", g.Match())
		}
		if TokenNote("MJ12bot") == "" || TokenNote("FooBot") != "" || TokenNote("Foo Bar") != "" {
			t.Errorf("TokenNote: %q %q %q", TokenNote("MJ12bot"), TokenNote("FooBot"), TokenNote("Foo Bar"))
		}
	})
	t.Run("sitemap between user-agent lines merges groups", func(t *testing.T) {
		body := "User-agent: alphabot\nSitemap: https://www.example.com/sitemap.xml\n\nUser-agent: betabot\nDisallow: /\n"
		runDecide(t, body, []decideCase{
			{"alphabot", "/x", false, 5},
			{"betabot", "/x", false, 5},
			{"gammabot", "/x", true, 0},
		})
	})
	t.Run("blank lines do not end a group", func(t *testing.T) {
		runDecide(t, "User-agent: a\n\nDisallow: /x\n\n\nAllow: /x/y\n", []decideCase{
			{"a", "/x", false, 3},
			{"a", "/x/y", true, 6},
		})
	})
	t.Run("agents of a group and their lines", func(t *testing.T) {
		f := Parse([]byte("User-agent: *\nUser-agent: FooBot/2\nDisallow: /a\n\nuser-agent: foobot\nDisallow: /b\n"))
		m := f.Group("FOOBOT").Match()
		// Every user-agent line of the merged groups, the "*" sharing the
		// first group included: the evidence shows who else the rules bind.
		want := []AgentLine{{1, "*", ""}, {2, "FooBot/2", "FooBot"}, {5, "foobot", "foobot"}}
		if m.Kind != MatchNamed || m.Token != "FOOBOT" || !reflect.DeepEqual(m.Agents, want) {
			t.Fatalf("Match = %+v", m)
		}
		if got := m.Values(); !reflect.DeepEqual(got, []string{"*", "FooBot/2", "foobot"}) {
			t.Errorf("Values = %q", got)
		}
		if got := m.Lines(); !reflect.DeepEqual(got, []int{1, 2, 5}) {
			t.Errorf("Lines = %v", got)
		}
		star := f.Group("Other").Match()
		if star.Kind != MatchStar || !reflect.DeepEqual(star.Agents, []AgentLine{{1, "*", ""}, {2, "FooBot/2", "FooBot"}}) {
			t.Errorf("star Match = %+v", star)
		}
		if got := len(f.Group("Other").Rules()); got != 1 {
			t.Errorf("star group rules = %d, want 1", got)
		}
	})
}

func TestDecideMatching(t *testing.T) {
	t.Run("longest match, tie to allow", func(t *testing.T) {
		runDecide(t, "User-agent: *\nDisallow: /x/page.html\nAllow: /x/\nAllow: /page\nDisallow: /*.htm\nDisallow: /same\nAllow: /same\nDisallow: /dup\nDisallow: /dup\n", []decideCase{
			{"a", "/x/page.html", false, 2},
			{"a", "/x/other", true, 3},
			{"a", "/page.htm", false, 5},
			{"a", "/same", true, 7},
			{"a", "/dup", false, 8}, // equal rules: the first line is reported
			{"a", "/other", true, 0},
		})
	})
	t.Run("length counts * and $ as written", func(t *testing.T) {
		// "/a*$" (4 octets) beats "/ab" (3) for /ab.
		runDecide(t, "User-agent: *\nDisallow: /ab\nAllow: /a*$\nAllow: /***\nDisallow: /z\n", []decideCase{
			{"a", "/ab", true, 3},
			{"a", "/z", true, 4},
		})
	})
	t.Run("empty rules match nothing", func(t *testing.T) {
		runDecide(t, "User-agent: *\nDisallow:\nAllow:\n", []decideCase{{"a", "/", true, 0}})
	})
	t.Run("robots.txt is always allowed", func(t *testing.T) {
		f := Parse([]byte("User-agent: *\nDisallow: /\nDisallow: /robots.txt\n"))
		g := f.Group("a")
		for _, p := range []string{"/robots.txt", "/robots.txt?x=1", "/robots%2Etxt"} {
			if v := g.Decide(p); !v.Allowed || !v.Implicit || v.Rule != nil {
				t.Errorf("%s: %+v", p, v)
			}
		}
		for _, p := range []string{"/robots.txt/", "/robots.txtx", "/x/robots.txt", "/Robots.txt"} {
			if v := g.Decide(p); v.Allowed || v.Implicit {
				t.Errorf("%s: %+v", p, v)
			}
		}
	})
	t.Run("empty path is /", func(t *testing.T) {
		runDecide(t, "User-agent: *\nDisallow: /$\nDisallow: /?\n", []decideCase{
			{"a", "", false, 2},
			{"a", "?q", false, 3},
		})
	})
	t.Run("query matched as written", func(t *testing.T) {
		runDecide(t, "User-agent: *\nDisallow: /search?q=\nAllow: /*?sort=*&page=\nDisallow: /*?*sort=\n", []decideCase{
			{"a", "/search?q=x", false, 2},
			{"a", "/search?page=1&q=x", true, 0},
			{"a", "/list?sort=a&page=2", true, 3},
			{"a", "/list?page=2&sort=a", false, 4},
		})
	})
	t.Run("percent-encoding", func(t *testing.T) {
		runDecide(t, "User-agent: *\nDisallow: /a%2Fb\nDisallow: /%7Euser\nDisallow: /ツ\nDisallow: /%e3%83%85\nDisallow: /c%3f\n", []decideCase{
			{"a", "/a%2Fb", false, 2},
			{"a", "/a%2fb", false, 2},
			{"a", "/a/b", true, 0},
			{"a", "/~user", false, 3},
			{"a", "/%7euser", false, 3},
			{"a", "/%E3%83%84", false, 4},
			{"a", "/ツ", false, 4},
			{"a", "/%E3%83%85", false, 5},
			{"a", "/c%3F", false, 6},
			{"a", "/c?", true, 0},
		})
	})
	t.Run("missing leading slash: kept as written, matches nothing", func(t *testing.T) {
		// Google's open-source matcher (robots.cc) compares the value as
		// written from the path's first octet, always "/": it never
		// matches. heed does the same and Lint reports the line.
		runDecide(t, "User-agent: *\nDisallow: private\nDisallow: $\nDisallow: ?q\n", []decideCase{
			{"a", "/private/x", true, 0},
			{"a", "/private", true, 0},
			{"a", "/x/private", true, 0},
			{"a", "/", true, 0},
			{"a", "/?q", true, 0},
		})
	})
	t.Run("RFC 9309 §2.2.3: %24 and %2A are literal $ and *", func(t *testing.T) {
		runDecide(t, "User-agent: *\nDisallow: /path/file-with-a-%2A.html\nDisallow: /path/foo-%24\nDisallow: /lit$eral\n", []decideCase{
			{"a", "/path/file-with-a-*.html", false, 2},
			{"a", "/path/file-with-a-%2A.html", false, 2},
			{"a", "/path/file-with-a-%2a.html", false, 2},
			{"a", "/path/file-with-a-b.html", true, 0}, // %2A is no wildcard
			{"a", "/path/foo-$", false, 3},
			{"a", "/path/foo-%24", false, 3},
			{"a", "/path/foo-$/more", false, 3}, // %24 is no end anchor
			{"a", "/path/foo-", true, 0},
			{"a", "/lit$eral", false, 4}, // a "$" that is not last is literal
			{"a", "/lit%24eral", false, 4},
			{"a", "/lit", true, 0},
		})
	})
	t.Run("characters a URL carries only encoded", func(t *testing.T) {
		runDecide(t, "User-agent: *\nDisallow: /a<b\nDisallow: /q?x=\"y\"\nDisallow: /sp ace\nDisallow: /t{1}\n", []decideCase{
			{"a", "/a%3Cb", false, 2},
			{"a", "/a%3cb", false, 2},
			{"a", "/a<b", false, 2},
			{"a", "/q?x=%22y%22", false, 3},
			{"a", "/sp%20ace", false, 4},
			{"a", "/t%7B1%7D", false, 5},
			{"a", "/t", true, 0},
		})
	})
	t.Run("paths are case-sensitive", func(t *testing.T) {
		runDecide(t, "User-agent: *\nDisallow: /Photo\n", []decideCase{
			{"a", "/Photo/1", false, 2},
			{"a", "/photo/1", true, 0},
		})
	})
}

func TestDecideLineNumbers(t *testing.T) {
	// The same file with every kind of line end: the deciding line must be
	// the line a text editor shows.
	lines := []string{"\xEF\xBB\xBF# robots", "User-agent: *", "", "Disallow: /a", "# c", "Allow: /a/b", "Disallow: /c"}
	for name, sep := range map[string][]string{
		"LF":    {"\n"},
		"CRLF":  {"\r\n"},
		"CR":    {"\r"},
		"mixed": {"\n", "\r\n", "\r", "\r\n", "\n", "\r"},
	} {
		t.Run(name, func(t *testing.T) {
			var b strings.Builder
			for i, l := range lines {
				b.WriteString(l)
				b.WriteString(sep[i%len(sep)])
			}
			runDecide(t, b.String(), []decideCase{
				{"x", "/a", false, 4},
				{"x", "/a/b", true, 6},
				{"x", "/c", false, 7},
			})
		})
	}
}

func TestCrawlDelay(t *testing.T) {
	body := "User-agent: *\nCrawl-delay: 7\nDisallow: /a\n\nUser-agent: FooBot\nCrawl-delay: abc\nCrawl-delay: -1\nCrawl-delay: 0.5\nCrawl-delay: 9\nAllow: /x\n\nUser-agent: BarBot\nDisallow: /\n\nUser-agent: BazBot\nDisallow: /\nUser-agent: BazBot\nCrawl-delay: 3\n"
	f := Parse([]byte(body))
	tests := []struct {
		token string
		d     time.Duration
		ok    bool
	}{
		{"Other", 7 * time.Second, true},
		{"FooBot", 500 * time.Millisecond, true},
		{"BarBot", 0, false}, // a named group does not inherit "*"'s
		{"BazBot", 3 * time.Second, true},
	}
	for _, tt := range tests {
		d, ok := f.Group(tt.token).CrawlDelay()
		if d != tt.d || ok != tt.ok {
			t.Errorf("%s: CrawlDelay = %v, %v; want %v, %v", tt.token, d, ok, tt.d, tt.ok)
		}
	}
	if got := len(f.Report().InvalidCrawlDelays); got != 2 {
		t.Errorf("InvalidCrawlDelays = %d, want 2", got)
	}
}

func TestVerdictString(t *testing.T) {
	f := Parse([]byte("User-agent: *\nDisallow: /private/ # keep out\nUser-agent: FooBot\nUser-agent: FooBot\nAllow: /\n"))
	tests := []struct {
		token, path, want string
	}{
		{"x", "/private/a", `disallowed by line 2 "Disallow: /private/" of user-agent "*" (line 1)`},
		{"x", "/public", `allowed: no rule matches (user-agent "*" (line 1))`},
		{"x", "/robots.txt", `allowed: /robots.txt is always allowed`},
		{"foobot", "/private/a", `allowed by line 5 "Allow: /" of user-agent "FooBot" (lines 3, 4)`},
	}
	for _, tt := range tests {
		if got := f.Group(tt.token).Decide(tt.path).String(); got != tt.want {
			t.Errorf("%s %s:\n got %s\nwant %s", tt.token, tt.path, got, tt.want)
		}
	}
	none := Parse([]byte("User-agent: a\nDisallow: /\n")).Group("b").Decide("/x").String()
	if want := `allowed: no group applies to "b"`; none != want {
		t.Errorf("got %s, want %s", none, want)
	}
}

func TestDecideURL(t *testing.T) {
	g := Parse([]byte("User-agent: *\nDisallow: /a?\nDisallow: /%7Eb\nDisallow: /sp%20ace\nAllow: /a?ok\nDisallow: /q?x=%2F\nDisallow: /$\n")).Group("x")
	for _, raw := range []string{
		"http://h/a?", "http://h/a?ok=1", "http://h/a", "http://h/~b", "http://h/%7eb/c",
		"http://h/sp ace", "http://h/sp%20ace", "http://h/q?x=%2f", "http://h/q?x=/", "http://h", "http://h/",
		"http://h/robots.txt?x", "http://h/ツ?ツ",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		got, want := g.DecideURL(u), g.Decide(u.RequestURI())
		if got != want {
			t.Errorf("%s: DecideURL = %v, Decide(RequestURI) = %v", raw, got, want)
		}
	}
	u, _ := url.Parse("http://h/a?ok")
	if v := g.DecideURL(u); !v.Allowed || v.Rule == nil || v.Rule.Line != 5 {
		t.Errorf("DecideURL(%s) = %v", u, v)
	}
	u = &url.URL{Scheme: "http", Host: "h", Path: "/a", ForceQuery: true}
	if v := g.DecideURL(u); v.Allowed {
		t.Errorf("DecideURL(%s) = %v", u, v)
	}
}

func TestDecideAllocations(t *testing.T) {
	g := Parse([]byte("User-agent: *\nDisallow: /*.pdf$\nDisallow: /search?\nAllow: /a%2Fb\nDisallow: /a\n")).Group("x")
	u, _ := url.Parse("https://example.com/products/shoes?color=red&size=9")
	cases := map[string]func(){
		"plain":          func() { g.Decide("/products/shoes/item-123.html") },
		"percent canon.": func() { g.Decide("/a%2Fb/c") },
		"rewrite":        func() { g.Decide("/%7Efoo/ツ?q=%e3") },
		"URL with query": func() { g.DecideURL(u) },
	}
	for name, f := range cases {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s: %v allocs per Decide", name, n)
		}
	}
}

func TestDecideConcurrent(t *testing.T) {
	g := Parse([]byte("User-agent: *\nDisallow: /a\nAllow: /a/b\nDisallow: /*.gif$\n")).Group("x")
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				if g.Decide("/a/b/c").Allowed != true || g.Decide("/a/c").Allowed || g.Decide("/%7Ex.gif").Allowed {
					t.Error("wrong verdict under concurrency")
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestRequestTarget(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://example.com/a%2Fb?q=%41#frag", "/a%2Fb?q=%41"},
		{"https://example.com", "/"},
		{"https://example.com?q", "/?q"},
		{"/p?q", "/p?q"},
		{"https://example.com/ツ", "/ツ"},
	}
	for _, tt := range tests {
		if got := RequestTarget(tt.in); got != tt.want {
			t.Errorf("RequestTarget(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestBucketsKeepPriority(t *testing.T) {
	// Rules spread over buckets and the general list must still be tried
	// longest first.
	body := "User-agent: *\nDisallow: /\nAllow: /a\nDisallow: /ab\nAllow: /*x\nDisallow: /*bc\nAllow: /abcd\nDisallow: *\n"
	runDecide(t, body, []decideCase{
		{"x", "/a", true, 3},
		{"x", "/ab", false, 4},
		{"x", "/xb", true, 5},
		{"x", "/abc", false, 6},
		{"x", "/xbc", false, 6},
		{"x", "/abcd", true, 7},
		{"x", "/", false, 2},
		{"x", "?", false, 2},
	})
}
