package middleware

// Waiting reports whether the authority's requests wait for its
// robots.txt: none is known yet, or it is unreachable and being retried
// (heed has not given up). A live view counts such authorities; it
// changes nothing and fetches nothing.
func (r *Robots) Waiting(authority string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.entries[authority]
	if e == nil {
		return true
	}
	if _, fetching := r.fetching[authority]; fetching && !usable(e) {
		return true
	}
	return e.State == RobotsUnreachable && !e.GaveUp(r.policy.GiveUpAfter)
}
