package aipref

// Category is one category of use of the vocabulary.
type Category struct {
	// Label is the dictionary key ("train-ai"): lower-case, case-sensitive.
	Label string
	// Name is the category's name in the draft.
	Name string
	// Ref is the section of draft-ietf-aipref-vocab-07 defining it.
	Ref string
}

// Categories is the vocabulary of draft-ietf-aipref-vocab-07 (§4, labels
// in §6.1). A new category is one line here; everything else (parsing,
// combining, lint, heed's --purpose) reads this table.
var Categories = []Category{
	{Label: "train-ai", Name: "AI Model Training", Ref: "draft-ietf-aipref-vocab-07 §4.1"},
	{Label: "search", Name: "Search", Ref: "draft-ietf-aipref-vocab-07 §4.2"},
}

// Lookup returns the category with the given label.
func Lookup(label string) (Category, bool) {
	for _, c := range Categories {
		if c.Label == label {
			return c, true
		}
	}
	return Category{}, false
}

// Labels returns the labels of Categories, in order.
func Labels() []string {
	out := make([]string, len(Categories))
	for i, c := range Categories {
		out[i] = c.Label
	}
	return out
}
