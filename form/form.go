// Package form reads HTML forms from a page and turns one into the request
// a browser would send when it is submitted, as Scrapy's
// FormRequest.from_response does: a login form, a search box, a
// "next page" button.
//
// # The model
//
// [Parse] finds every <form> of a document, in document order, with its
// method, action (resolved against the page's URL or <base href>),
// enctype and the fields a browser would submit: enabled, named
// <input>s (text, hidden, password and the like, checkboxes and radio
// buttons only when checked), the selected <option>s of each <select>
// (its first option when none is selected and it is not multiple), and
// <textarea>s. Submit buttons are kept apart: [Form.Submit] sends the
// first one as clicked unless told otherwise, as a browser does when
// Enter is pressed.
//
// [Form.Submit] applies the caller's values by name (replacing every
// value the page gave that field, or adding the field), and builds a
// frontier.Request: for GET, the fields replace the action's query; for
// POST, they are the body, urlencoded, with the matching Content-Type.
// The request is plain data; heed's crawler queues it like any other, so
// it passes robots.txt, scope and pacing.
//
// # Limits
//
// Only application/x-www-form-urlencoded is built: a multipart form (file
// uploads) is refused with an error, and so is a method other than GET or
// POST (HTML has no others; "dialog" submits nothing). Fields outside the
// <form> element that name it with form="id" are not collected, and no
// script runs: a form that JavaScript fills in is seen as the HTML has it.
package form

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/PuerkitoBio/goquery"

	"github.com/heedcrawl/heed/frontier"
)

// Field is one name and value a form submits.
type Field struct {
	Name  string
	Value string
}

// Form is one <form> of a page, as a browser would submit it.
type Form struct {
	// Index is the form's position among the page's forms, from 0.
	Index int
	// ID and Name are the form's id and name attributes.
	ID, Name string
	// Method is "GET" or "POST" (the method attribute, upper-cased; GET
	// when absent or not one of the two).
	Method string
	// Action is the absolute URL the form submits to: its action
	// resolved against the page, the page's URL when it has none.
	Action string
	// Enctype is the form's enctype, lower-cased; empty means
	// application/x-www-form-urlencoded.
	Enctype string
	// Fields are the values the form submits as the page has them, in
	// document order, without its submit buttons.
	Fields []Field
	// Buttons are the form's named submit buttons, in document order.
	Buttons []Field
}

// Parse returns the forms of doc, whose URL is base, in document order. A
// <base href> in doc, if any, resolves the actions instead of base. It
// never fails on odd HTML; a form whose action is not a URL keeps the
// page's URL as its action.
func Parse(doc *goquery.Document, base *url.URL) []*Form {
	if b, ok := doc.Find("base[href]").First().Attr("href"); ok {
		if u, err := base.Parse(strings.TrimSpace(b)); err == nil {
			base = u
		}
	}
	var out []*Form
	doc.Find("form").Each(func(i int, s *goquery.Selection) {
		out = append(out, parseForm(i, s, base))
	})
	return out
}

func parseForm(i int, s *goquery.Selection, base *url.URL) *Form {
	f := &Form{Index: i, ID: attr(s, "id"), Name: attr(s, "name")}
	f.Method = strings.ToUpper(strings.TrimSpace(attr(s, "method")))
	if f.Method != http.MethodPost {
		f.Method = http.MethodGet
	}
	f.Enctype = strings.ToLower(strings.TrimSpace(attr(s, "enctype")))
	f.Action = base.String()
	if a := strings.TrimSpace(attr(s, "action")); a != "" {
		if u, err := base.Parse(a); err == nil {
			f.Action = u.String()
		}
	}
	s.Find("input, select, textarea, button").Each(func(_ int, el *goquery.Selection) {
		name := attr(el, "name")
		if name == "" || hasAttr(el, "disabled") || el.ParentsFiltered("fieldset[disabled]").Length() > 0 {
			return
		}
		switch goquery.NodeName(el) {
		case "input":
			typ := strings.ToLower(strings.TrimSpace(attr(el, "type")))
			switch typ {
			case "submit", "image":
				f.Buttons = append(f.Buttons, Field{name, attr(el, "value")})
			case "reset", "button", "file":
			case "checkbox", "radio":
				if hasAttr(el, "checked") {
					v, ok := el.Attr("value")
					if !ok {
						v = "on"
					}
					f.Fields = append(f.Fields, Field{name, v})
				}
			default:
				f.Fields = append(f.Fields, Field{name, attr(el, "value")})
			}
		case "button":
			typ := strings.ToLower(strings.TrimSpace(attr(el, "type")))
			if typ == "" || typ == "submit" {
				f.Buttons = append(f.Buttons, Field{name, attr(el, "value")})
			}
		case "textarea":
			f.Fields = append(f.Fields, Field{name, el.Text()})
		case "select":
			f.Fields = append(f.Fields, selected(name, el)...)
		}
	})
	return f
}

// selected returns what a <select> submits.
func selected(name string, el *goquery.Selection) []Field {
	var out []Field
	opts := el.Find("option")
	value := func(o *goquery.Selection) string {
		if v, ok := o.Attr("value"); ok {
			return v
		}
		return strings.TrimSpace(o.Text())
	}
	opts.Each(func(_ int, o *goquery.Selection) {
		if hasAttr(o, "selected") && !hasAttr(o, "disabled") {
			out = append(out, Field{name, value(o)})
		}
	})
	multiple := hasAttr(el, "multiple")
	if len(out) == 0 && !multiple && opts.Length() > 0 {
		return []Field{{name, value(opts.First())}}
	}
	if !multiple && len(out) > 1 {
		out = out[len(out)-1:] // a browser keeps the last selected
	}
	return out
}

func attr(s *goquery.Selection, name string) string {
	v, _ := s.Attr(name)
	return v
}

func hasAttr(s *goquery.Selection, name string) bool {
	_, ok := s.Attr(name)
	return ok
}

// Values returns the form's fields as url.Values.
func (f *Form) Values() url.Values {
	v := url.Values{}
	for _, fl := range f.Fields {
		v.Add(fl.Name, fl.Value)
	}
	return v
}

// Submission says how to submit a form.
type Submission struct {
	// Values replace, by name, every value the page gave the field (or
	// add the field). A nil slice removes the field.
	Values map[string][]string
	// Button names the submit button clicked; empty clicks the form's
	// first named button, if it has one.
	Button string
	// NoClick submits without any button, as a script calling
	// form.submit() does.
	NoClick bool
}

// ErrEnctype is returned by Submit for a form heed cannot encode.
var ErrEnctype = errors.New("form: only application/x-www-form-urlencoded forms are submitted")

// Submit returns the request that submits f with sub: method and action
// from the form, fields from the page with sub's values applied, and the
// clicked button's name and value. For GET the fields become the query of
// the action; for POST the urlencoded body, with its Content-Type.
func (f *Form) Submit(sub Submission) (*frontier.Request, error) {
	if f.Enctype != "" && f.Enctype != "application/x-www-form-urlencoded" {
		return nil, fmt.Errorf("%w: form %d has enctype %q", ErrEnctype, f.Index, f.Enctype)
	}
	var pairs []Field
	done := map[string]bool{}
	for _, fl := range f.Fields {
		if vs, ok := sub.Values[fl.Name]; ok {
			if !done[fl.Name] {
				done[fl.Name] = true
				for _, v := range vs {
					pairs = append(pairs, Field{fl.Name, v})
				}
			}
			continue
		}
		pairs = append(pairs, fl)
	}
	// Values for fields the page did not have are added, in name order
	// so that a request is the same on every run.
	for _, name := range slices.Sorted(maps.Keys(sub.Values)) {
		if !done[name] {
			for _, v := range sub.Values[name] {
				pairs = append(pairs, Field{name, v})
			}
		}
	}
	if !sub.NoClick {
		b, err := f.button(sub.Button)
		if err != nil {
			return nil, err
		}
		if b != nil {
			pairs = append(pairs, *b)
		}
	}
	enc := encode(pairs)
	action, err := url.Parse(f.Action)
	if err != nil {
		return nil, fmt.Errorf("form: action %q: %w", f.Action, err)
	}
	action.Fragment, action.RawFragment = "", ""
	if f.Method == http.MethodGet {
		action.RawQuery = enc
		return &frontier.Request{URL: action.String()}, nil
	}
	return &frontier.Request{
		URL:    action.String(),
		Method: http.MethodPost,
		Header: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}},
		Body:   []byte(enc),
	}, nil
}

func (f *Form) button(name string) (*Field, error) {
	if name == "" {
		if len(f.Buttons) == 0 {
			return nil, nil
		}
		return &f.Buttons[0], nil
	}
	for i := range f.Buttons {
		if f.Buttons[i].Name == name {
			return &f.Buttons[i], nil
		}
	}
	return nil, fmt.Errorf("form: form %d has no submit button named %q", f.Index, name)
}

// encode writes pairs urlencoded in their order (url.Values.Encode would
// sort them, and a form's order is the page's).
func encode(pairs []Field) string {
	var b strings.Builder
	for i, p := range pairs {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(p.Name))
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(p.Value))
	}
	return b.String()
}

// Find returns the first form of forms that matches: by id or name when
// key is not empty (either attribute), else the form at index. It returns
// nil when none does.
func Find(forms []*Form, key string, index int) *Form {
	for _, f := range forms {
		if key != "" && (f.ID == key || f.Name == key) {
			return f
		}
		if key == "" && f.Index == index {
			return f
		}
	}
	return nil
}
