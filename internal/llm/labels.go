package llm

import (
	"slices"
	"strings"
)

// kind is the shape of value a field holds, which decides the pattern that may find it unlabelled and
// how a labelled value is read.
type kind int

const (
	kText kind = iota
	kAmount
	kDate
	kEmail
	kPhone
	kURL
	kInvoiceID
	kOrderID
	kCurrency
	kSummary
)

// concept is a field the model knows by meaning: the labels it goes by in documents, most telling
// first, and whether a pattern may find it without a label. Only fields whose pattern cannot be
// confused with a sibling's may: a document's only date is its date, never its due date.
type concept struct {
	id       string
	labels   []string
	kind     kind
	fallback bool
}

var (
	cTotal    = concept{"total", []string{"total", "amount due", "total due", "grand total", "balance due", "total amount", "amount", "balance", "sum"}, kAmount, true}
	cDate     = concept{"date", []string{"date", "invoice date", "dated", "issued", "issue date", "issued on", "date issued", "document date"}, kDate, true}
	cDue      = concept{"due_date", []string{"due date", "due", "payment due", "due by", "pay by", "payment date"}, kDate, false}
	cInvoice  = concept{"invoice_number", []string{"invoice number", "invoice no", "invoice nr", "invoice id", "invoice ref", "invoice", "bill number"}, kInvoiceID, true}
	cOrder    = concept{"order_number", []string{"order number", "order no", "order nr", "order id", "order", "po number", "purchase order"}, kOrderID, true}
	cEmail    = concept{"email", []string{"email", "e-mail", "email address", "e-mail address", "mail"}, kEmail, true}
	cPhone    = concept{"phone", []string{"phone", "tel", "telephone", "mobile", "phone number", "cell"}, kPhone, true}
	cURL      = concept{"url", []string{"url", "website", "web", "link", "homepage", "site"}, kURL, true}
	cVendor   = concept{"vendor", []string{"vendor", "supplier", "seller", "company", "vendor name", "supplier name", "company name", "merchant", "sold by", "bill from", "issuer", "from"}, kText, false}
	cName     = concept{"name", []string{"name", "full name", "contact name", "contact", "from"}, kText, false}
	cCurrency = concept{"currency", []string{"currency"}, kCurrency, true}
	cSummary  = concept{"summary", []string{"summary", "tl;dr", "abstract"}, kSummary, true}
)

// claimers are labels whose values belong to them alone: a date after "Due date:" is no invoice's
// date, an amount after "VAT:" no total, so patterns looking for an unlabelled value pass them by.
var claimers = []concept{cTotal, cDate, cDue, cInvoice, cOrder, cPhone,
	{"subtotal", []string{"subtotal", "sub-total", "net", "net amount", "tax", "vat", "gst", "sales tax", "discount", "shipping"}, kAmount, false},
	{"other_date", []string{"delivery date", "ship date", "shipping date", "order date", "expiry date", "date of birth"}, kDate, false},
	{"fax", []string{"fax"}, kPhone, false},
}

// qualifiers, in front of a one-word label, make it another field's: "Due date" is not a date,
// "Tax amount" not an amount, unless the field itself goes by the longer label.
var qualifiers = []string{"due", "payment", "delivery", "shipping", "ship", "expiry", "expiration", "birth", "start",
	"end", "tax", "vat", "gst", "net", "sub", "discount", "previous", "phone", "fax", "account", "tracking", "order"}

// words splits a property name (snake_case, camelCase, kebab-case, spaced) into lower-case words.
func words(name string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, strings.ToLower(b.String()))
			b.Reset()
		}
	}
	for i, r := range name {
		switch {
		case r == '_' || r == '-' || r == ' ' || r == '.':
			flush()
		case r >= 'A' && r <= 'Z' && i > 0 && name[i-1] >= 'a' && name[i-1] <= 'z':
			flush()
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	flush()
	return out
}

// conceptOf recognises a field by the words of its name (its parents' first) and its format; a field
// it does not know goes by its own name only and is found by its label alone. A date or a sum is the
// document's own only when nothing else qualifies it: "delivery_date" and "unit_price" are not.
func conceptOf(w []string, format string) concept {
	has := func(s ...string) bool {
		return slices.ContainsFunc(w, func(x string) bool { return slices.Contains(s, x) })
	}
	only := func(s ...string) bool {
		return !slices.ContainsFunc(w, func(x string) bool { return !slices.Contains(s, x) })
	}
	own := strings.Join(w, " ")
	var c concept
	switch {
	case format == "email" || has("email", "mail"):
		c = cEmail
	case has("phone", "tel", "telephone", "mobile", "cell"):
		c = cPhone
	case format == "uri" || format == "url" || has("url", "website", "homepage", "link"):
		c = cURL
	case has("invoice") && only("invoice", "number", "no", "nr", "num", "id", "ref", "reference"):
		c = cInvoice
	case has("order", "po") && only("order", "po", "purchase", "number", "no", "nr", "num", "id", "ref", "reference"):
		c = cOrder
	case has("due") && has("date", "on", "by") || own == "due" || format == "date" && has("due"):
		c = cDue
	case has("date", "issued") || format == "date" || format == "date-time":
		c = concept{"", nil, kDate, false}
		if only("date", "invoice", "issue", "issued", "document", "bill") {
			c = cDate
		}
	case has("currency"):
		c = cCurrency
	case has("total", "amount", "balance", "sum", "price", "cost", "subtotal", "tax", "vat", "fee"):
		c = concept{"", nil, kAmount, false}
		if only("total", "amount", "due", "grand", "balance", "sum", "invoice", "price", "cost", "gross", "final") {
			c = cTotal
		}
	case has("vendor", "supplier", "seller", "merchant", "issuer", "company") && only("vendor", "supplier", "seller",
		"merchant", "issuer", "company", "name"):
		c = cVendor
	case len(w) > 0 && only("name", "full", "sender", "contact") && own != "full":
		c = cName
	case has("summary", "tldr", "abstract", "gist"):
		c = cSummary
	}
	if own != "" && !slices.Contains(c.labels, own) {
		c.labels = append([]string{own}, c.labels...)
	}
	return c
}

// isWord reports a byte that continues a word, so labels match whole words only.
func isWord(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b >= 0x80
}

// lowerASCII lowers ASCII letters only, so that positions in it are positions in s.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// matchLabel reports where label (lower-case words) ends when it starts at i of lower as whole words;
// the words may be joined by spaces, '_' or '-' ("Invoice-number", "invoice_number").
func matchLabel(lower string, i int, label string) (int, bool) {
	if i > 0 && isWord(lower[i-1]) {
		return 0, false
	}
	j := i
	for n, w := range strings.Fields(label) {
		if n > 0 {
			k := j
			for k < len(lower) && (lower[k] == ' ' || lower[k] == '_' || lower[k] == '-') {
				k++
			}
			if k == j {
				return 0, false
			}
			j = k
		}
		if !strings.HasPrefix(lower[j:], w) {
			return 0, false
		}
		j += len(w)
		// A possessive joins the words of a label as well as a space does: "applicant's name".
		for _, s := range []string{"'s", "’s"} {
			if n < len(strings.Fields(label))-1 && strings.HasPrefix(lower[j:], s) {
				j += len(s)
			}
		}
	}
	if j < len(lower) && isWord(lower[j]) {
		return 0, false
	}
	return j, true
}

// qualified reports a one-word label at i preceded by a qualifier the field's labels do not include.
func qualified(lower string, i int, label string, labels []string) bool {
	if strings.Contains(label, " ") {
		return false
	}
	j := i
	for j > 0 && (lower[j-1] == ' ' || lower[j-1] == '-' || lower[j-1] == '_') {
		j--
	}
	k := j
	for k > 0 && isWord(lower[k-1]) {
		k--
	}
	prev := lower[k:j]
	return slices.Contains(qualifiers, prev) && !slices.Contains(labels, prev+" "+label)
}
