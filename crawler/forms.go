package crawler

import (
	"errors"
	"fmt"

	"github.com/heedcrawl/heed/form"
)

// Forms returns the page's HTML forms, in document order (see package
// form): their method, action and the fields a browser would submit.
func (r *Response) Forms() []*form.Form {
	doc := r.Doc()
	base := r.base
	if base == nil {
		base = r.URL
	}
	return form.Parse(doc, base)
}

// ErrNoForm is returned by SubmitForm when the page has no form matching
// the key.
var ErrNoForm = errors.New("crawler: no such form on the page")

// SubmitForm queues the submission of one of the page's forms, as
// Scrapy's FormRequest.from_response: key is the form's id or name (empty
// for the page's first form), values replace the page's values by name
// (or add fields), the first submit button is clicked, and the form's
// method and action are honoured. The request carries the page as its
// Referer and passes robots.txt and pacing like any other; the session
// cookies the site set on this authority go with it. opts apply as for
// Follow (WithCallback names the handler of the answer).
func (r *Response) SubmitForm(key string, values map[string]string, opts ...RequestOption) error {
	sub := form.Submission{Values: make(map[string][]string, len(values))}
	for k, v := range values {
		sub.Values[k] = []string{v}
	}
	return r.Submit(key, sub, opts...)
}

// Submit is SubmitForm with the whole of form.Submission: several values
// per field, fields removed, the button to click or none.
func (r *Response) Submit(key string, sub form.Submission, opts ...RequestOption) error {
	forms := r.Forms()
	f := form.Find(forms, key, 0)
	if f == nil {
		return fmt.Errorf("%w: %q on %s (%d forms)", ErrNoForm, key, r.Request.URL, len(forms))
	}
	req, err := f.Submit(sub)
	if err != nil {
		return fmt.Errorf("crawler: %s: %w", r.Request.URL, err)
	}
	r.FollowRequest(req, append([]RequestOption{WithHeader("Referer", r.Request.URL)}, opts...)...)
	return nil
}
