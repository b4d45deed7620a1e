package llm

import "slices"

// unlabelled lists the distinct values of the field's shape in the input, read as its type, in the
// order they appear. It passes by values another label of the same shape claims: the date after
// "Due date:" is not the document's date, the sum after "VAT:" not its total.
func (d *doc) unlabelled(c concept, read func(string) (any, bool)) []any {
	var ms []match
	switch c.kind {
	case kAmount:
		for _, a := range amounts(d.text) {
			ms = append(ms, a.match)
		}
	case kDate:
		for _, x := range dates(d.text) {
			ms = append(ms, x.match)
		}
	case kEmail:
		ms = find(emailRe, d.text, nil)
	case kURL:
		ms = find(urlRe, d.text, nil)
	case kPhone:
		ms = find(phoneRe, d.text, phoneOK)
	case kInvoiceID:
		ms = find(invoiceRe, d.text, nil)
	case kOrderID:
		ms = find(orderRe, d.text, nil)
	case kCurrency:
		ms = find(currencyRe, d.text, nil)
	case kSummary:
		if s := summary(d.prose); s != "" {
			ms = []match{{value: s}}
		}
	}
	var claimed []hit
	for _, other := range claimers {
		if other.kind == c.kind && other.id != c.id {
			claimed = append(claimed, d.labelled(other.labels)...)
		}
	}
	var out []any
	for _, m := range ms {
		inClaim := slices.ContainsFunc(claimed, func(h hit) bool { return m.start < h.end && h.start < m.end })
		if v, ok := read(m.value); ok && !inClaim {
			out = appendNew(out, v)
		}
	}
	return out
}
