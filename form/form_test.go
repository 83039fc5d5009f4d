package form

import (
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

const page = `<html><head><base href="/app/"></head><body>
<form id="search" action="find?x=1#top"><input name="q" value="old"><select name="sort"><option value="new">New</option><option>Old</option></select>
<button name="go" value="1">Go</button></form>
<form name="login" method="post" action="/session">
  <input type="hidden" name="csrf" value="t0k">
  <input name="user"><input type="password" name="pass">
  <input type="checkbox" name="remember" checked><input type="checkbox" name="spam" value="yes">
  <input type="radio" name="lang" value="en"><input type="radio" name="lang" value="fr" checked>
  <select name="tags" multiple><option selected>a</option><option>b</option><option selected value="c!">C</option></select>
  <textarea name="note">hi there</textarea>
  <input name="off" value="x" disabled>
  <fieldset disabled><input name="fs" value="x"></fieldset>
  <input type="submit" name="action" value="Log in"><input type="submit" name="action2" value="Register">
  <input type="reset" name="r"><input type="file" name="f">
</form>
<form enctype="multipart/form-data" method="post"><input name="up"></form>
</body></html>`

func parse(t *testing.T) []*Form {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse("http://a.example/start")
	return Parse(doc, base)
}

func TestParseAndSubmit(t *testing.T) {
	forms := parse(t)
	if len(forms) != 3 {
		t.Fatalf("%d forms; want 3", len(forms))
	}
	login := Find(forms, "login", 0)
	if login == nil || login.Method != "POST" || login.Action != "http://a.example/session" {
		t.Fatalf("login form = %+v", login)
	}
	want := "csrf=t0k&user=&pass=&remember=on&lang=fr&tags=a&tags=c%21&note=hi+there"
	if got := encode(login.Fields); got != want {
		t.Errorf("fields = %s\n want %s", got, want)
	}
	req, err := login.Submit(Submission{Values: map[string][]string{"user": {"ann"}, "pass": {"s3cret"}, "remember": nil, "extra": {"1"}}})
	if err != nil {
		t.Fatal(err)
	}
	wantBody := "csrf=t0k&user=ann&pass=s3cret&lang=fr&tags=a&tags=c%21&note=hi+there&extra=1&action=Log+in"
	if req.Method != "POST" || req.URL != "http://a.example/session" || string(req.Body) != wantBody ||
		req.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		t.Errorf("login request = %s %s %q %v\n want body %q", req.Method, req.URL, req.Body, req.Header, wantBody)
	}
	req, err = login.Submit(Submission{Button: "action2"})
	if err != nil || !strings.HasSuffix(string(req.Body), "&action2=Register") {
		t.Errorf("second button: %q %v", req.Body, err)
	}
	if _, err := login.Submit(Submission{Button: "nope"}); err == nil {
		t.Error("an unknown button was accepted")
	}
	if req, _ := login.Submit(Submission{NoClick: true}); strings.Contains(string(req.Body), "action") {
		t.Errorf("NoClick sent a button: %q", req.Body)
	}

	search := Find(forms, "search", 0)
	req, err = search.Submit(Submission{Values: map[string][]string{"q": {"blue shoes"}}})
	if err != nil {
		t.Fatal(err)
	}
	if req.Method != "" || req.URL != "http://a.example/app/find?q=blue+shoes&sort=new&go=1" || req.Body != nil {
		t.Errorf("search request = %s %s %q", req.Method, req.URL, req.Body)
	}
	if _, err := forms[2].Submit(Submission{}); err == nil {
		t.Error("a multipart form was submitted")
	}
	if Find(forms, "", 2) != forms[2] || Find(forms, "missing", 0) != nil {
		t.Error("Find by index or a missing name")
	}
}

func FuzzParse(f *testing.F) {
	f.Add(page)
	f.Add(`<form action="http://[::1"><input name=a><select name=s></select></form>`)
	f.Add(`<form method=POST action=%zz><button name=b type=reset>`)
	base, _ := url.Parse("http://a.example/")
	f.Fuzz(func(t *testing.T, html string) {
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(html))
		if err != nil {
			return
		}
		for _, fm := range Parse(doc, base) {
			req, err := fm.Submit(Submission{Values: map[string][]string{"a": {"1"}}})
			if err != nil {
				continue
			}
			if _, err := url.Parse(req.URL); err != nil || (fm.Method == "POST") != (req.Method == "POST") {
				t.Fatalf("form %+v gave request %+v (%v)", fm, req, err)
			}
		}
	})
}
