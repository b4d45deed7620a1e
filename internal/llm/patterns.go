package llm

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// The patterns below find values without a label. Go's regexp runs in time linear in its input (RE2,
// no backtracking), so no input can make them slow; the input itself is bounded (maxText).
var (
	emailRe = regexp.MustCompile(`[A-Za-z0-9][A-Za-z0-9._%+\-]*@[A-Za-z0-9][A-Za-z0-9\-]*(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}`)
	urlRe   = regexp.MustCompile(`(?i)\b(?:https?://|www\.)[^\s<>"'\x60]+`)
	phoneRe = regexp.MustCompile(`\+?\(?\d[\d ()\-]{5,20}\d`)
	// Invoice and order numbers are told by their prefix: INV-2041, PO-77, ORD/5531.
	invoiceRe = regexp.MustCompile(`(?i)\b(?:inv|invoice|bill)[-/#]?\d[\w\-/]*`)
	orderRe   = regexp.MustCompile(`(?i)\b(?:ord|order|po|so)[-/#]?\d[\w\-/]*`)
	// A number with thousands groups (1,250.00, 1.250,00, 1 250,00) or without (99, 12.5).
	numRe      = regexp.MustCompile(`[-−]?(?:\d{1,3}(?:[,.  ]\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?)`)
	currencies = `\b(?:EUR|USD|GBP|CHF|JPY|CAD|AUD|NZD|SEK|NOK|DKK|PLN|CZK|HUF|INR|CNY|BRL|MXN|ZAR)\b|€|\$|£|¥|₹`
	amountRe   = regexp.MustCompile(`(?:` + currencies + `) ?` + numRe.String() + `|` + numRe.String() + ` ?(?:` + currencies + `)`)
	currencyRe = regexp.MustCompile(currencies)
)

// symbols are the currency signs and the codes they stand for.
var symbols = map[string]string{"€": "EUR", "$": "USD", "£": "GBP", "¥": "JPY", "₹": "INR"}

// match is a value a pattern found, with where it is.
type match struct {
	value      string
	start, end int
}

// find lists a pattern's matches in text, checked by ok when ok is not nil.
func find(re *regexp.Regexp, text string, ok func(string, int, int) bool) []match {
	var out []match
	for _, m := range re.FindAllStringIndex(text, maxHits*4) {
		v := strings.TrimRight(text[m[0]:m[1]], ".,;:!?)]")
		if v != "" && (ok == nil || ok(text, m[0], m[0]+len(v))) {
			out = append(out, match{v, m[0], m[0] + len(v)})
		}
	}
	return out
}

// phoneOK keeps what has a phone number's digits and stands apart: not a date, not part of a word or a
// longer number.
func phoneOK(t string, s, e int) bool {
	v := t[s:e]
	digits := 0
	for _, c := range v {
		if c >= '0' && c <= '9' {
			digits++
		}
	}
	if digits < 7 || digits > 15 || s > 0 && joins(t[s-1], s >= 2 && isDigit(t[s-2])) ||
		e < len(t) && joins(t[e], e+1 < len(t) && isDigit(t[e+1])) {
		return false
	}
	_, isDate := parseDate(v)
	return !isDate
}

// joins reports a character that makes a match part of something longer: a letter, digit, '-' or '/',
// or a '.' or ',' with a digit beyond it ("1.250.000"), not a full stop.
func joins(c byte, digitBeyond bool) bool {
	return isWord(c) || c == '-' || c == '/' || (c == '.' || c == ',') && digitBeyond
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// amount is a sum of money found in text.
type amount struct {
	value    float64
	currency string
	match
}

// amounts lists the sums with a currency in text.
func amounts(text string) []amount {
	var out []amount
	for _, m := range find(amountRe, text, nil) {
		n := numRe.FindString(m.value)
		v, ok := parseNumber(n, true)
		if !ok {
			continue
		}
		c := currencyRe.FindString(m.value)
		if s, ok := symbols[c]; ok {
			c = s
		}
		out = append(out, amount{v, c, m})
	}
	return out
}

// numberIn reads the number a labelled value holds: its first sum with a currency, else its first number.
func numberIn(s string) (float64, bool) {
	if a := amounts(s); len(a) > 0 {
		return a[0].value, true
	}
	for _, n := range numRe.FindAllString(s, 4) {
		if v, ok := parseNumber(n, false); ok {
			return v, true
		}
	}
	return 0, false
}

// parseNumber reads 1,250.00, 1.250,00, 1 250,00, 12,5 and 99. With both ',' and '.' the last is the
// decimal mark; one ',' followed by three digits groups thousands, as does one '.' in a sum of money
// (1.250 EUR is 1250, a plain 1.250 is 1.25); repeated marks always group.
func parseNumber(s string, money bool) (float64, bool) {
	s = strings.NewReplacer(" ", "", " ", "", " ", "", "−", "-").Replace(s)
	commas, dots := strings.Count(s, ","), strings.Count(s, ".")
	decimal := func(mark string) { // mark is the decimal mark, the other one groups
		other := map[string]string{",": ".", ".": ","}[mark]
		s = strings.ReplaceAll(s, other, "")
		s = strings.Replace(s, mark, ".", 1)
	}
	afterLast := func(mark string) int { return len(s) - strings.LastIndex(s, mark) - 1 }
	switch {
	case commas > 0 && dots > 0 && strings.LastIndex(s, ",") > strings.LastIndex(s, "."):
		decimal(",")
	case commas > 0 && dots > 0:
		decimal(".")
	case commas > 1 || commas == 1 && afterLast(",") == 3:
		s = strings.ReplaceAll(s, ",", "")
	case commas == 1:
		decimal(",")
	case dots > 1 || dots == 1 && money && afterLast(".") == 3:
		s = strings.ReplaceAll(s, ".", "")
	}
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil && !math.IsInf(v, 0) && !math.IsNaN(v)
}
