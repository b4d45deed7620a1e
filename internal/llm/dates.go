package llm

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

const months = `(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`

// The date forms read: 2026-03-02 (also with / or .), 02/03/2026, 3/2/2026, 2.3.26, 2 March 2026,
// 2nd of March 2026, March 2, 2026 and Mar 2 2026. Month names are English only.
var (
	isoDateRe   = regexp.MustCompile(`\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b`)
	numDateRe   = regexp.MustCompile(`\b(\d{1,2})([-/.])(\d{1,2})[-/.](\d{4}|\d{2})\b`)
	dayMonthRe  = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\.?\s+(?:of\s+)?` + months + `\b\.?,?\s+(\d{4})\b`)
	monthDayRe  = regexp.MustCompile(`(?i)\b` + months + `\b\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b`)
	monthByName = map[string]int{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8,
		"sep": 9, "oct": 10, "nov": 11, "dec": 12}
)

// dateMatch is a date found in text, as ISO YYYY-MM-DD.
type dateMatch struct {
	iso string
	match
}

// dates lists the valid dates in text, in the order they appear; where two forms overlap, the one that
// starts first (and then the longer) is the date.
func dates(text string) []dateMatch {
	var all []dateMatch
	add := func(m []int, y, mo, d int) {
		if iso, ok := isoDate(y, mo, d); ok {
			all = append(all, dateMatch{iso, match{text[m[0]:m[1]], m[0], m[1]}})
		}
	}
	sub := func(m []int, i int) string { return text[m[2*i]:m[2*i+1]] }
	for _, m := range isoDateRe.FindAllStringSubmatchIndex(text, maxHits) {
		add(m, atoi(sub(m, 1)), atoi(sub(m, 2)), atoi(sub(m, 3)))
	}
	for _, m := range numDateRe.FindAllStringSubmatchIndex(text, maxHits) {
		mo, d := monthDay(sub(m, 1), sub(m, 2), sub(m, 3))
		add(m, year(sub(m, 4)), mo, d)
	}
	for _, m := range dayMonthRe.FindAllStringSubmatchIndex(text, maxHits) {
		add(m, atoi(sub(m, 3)), monthByName[strings.ToLower(sub(m, 2)[:3])], atoi(sub(m, 1)))
	}
	for _, m := range monthDayRe.FindAllStringSubmatchIndex(text, maxHits) {
		add(m, atoi(sub(m, 3)), monthByName[strings.ToLower(sub(m, 1)[:3])], atoi(sub(m, 2)))
	}
	sort.SliceStable(all, func(i, j int) bool {
		return all[i].start < all[j].start || all[i].start == all[j].start && all[i].end > all[j].end
	})
	var out []dateMatch
	for _, d := range all {
		if len(out) == 0 || d.start >= out[len(out)-1].end {
			out = append(out, d)
		}
	}
	return out
}

// monthDay reads the two leading numbers of a numeric date as month and day. A number above 12 can
// only be the day; a dot (2.3.2026) or two-digit padding (02/03/2026) is the European day-first form;
// unpadded slashes (3/2/2026) are the American month-first form.
func monthDay(a, sep, b string) (int, int) {
	x, y := atoi(a), atoi(b)
	switch {
	case x > 12:
		return y, x
	case y > 12:
		return x, y
	case sep == "." || len(a) == 2 && len(b) == 2:
		return y, x
	default:
		return x, y
	}
}

// parseDate reads the first date in s as ISO YYYY-MM-DD.
func parseDate(s string) (string, bool) {
	if d := dates(s); len(d) > 0 {
		return d[0].iso, true
	}
	return "", false
}

func isoDate(y, m, d int) (string, bool) {
	if y < 1000 || y > 9999 || m < 1 || m > 12 || d < 1 {
		return "", false
	}
	if t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC); t.Day() != d {
		return "", false // 31 April and 29 February of a common year do not exist
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, m, d), true
}

// year reads a year; two digits are this century's up to 69 and the last one's after.
func year(s string) int {
	y := atoi(s)
	if len(s) == 2 {
		if y < 70 {
			return 2000 + y
		}
		return 1900 + y
	}
	return y
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
