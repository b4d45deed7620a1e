package builtin

import (
	"regexp"
	"strconv"
	"strings"
)

// guard is a comparison that decides whether a step runs: "if the total is above 1000".
type guard struct {
	text, field, op, value string
}

var guardRe = regexp.MustCompile(`(?i)\b(?:only\s+)?(?:if|when|unless)\s+(?:the\s+|its\s+)?([a-z][a-z _]{0,40}?)\s+(?:is\s+|are\s+)?` +
	`(above|over|greater than|more than|exceeds|at least|below|under|less than|at most|equals|equal to|is not|is|>=|<=|>|<|=)\s+` +
	`(?:to\s+)?([$€£]?\s?-?\d+(?:[.,]\d+)?|"[^"]*"|'[^']*'|[a-z][a-z_-]*)`)

var guardOps = map[string]string{"above": ">", "over": ">", "greater than": ">", "more than": ">", "exceeds": ">",
	"at least": ">=", "below": "<", "under": "<", "less than": "<", "at most": "<=", "equals": "==", "equal to": "==",
	"is": "==", "is not": "!=", ">=": ">=", "<=": "<=", ">": ">", "<": "<", "=": "=="}

// guardOf reads a step's guard from its clause; unless turns it round.
func guardOf(clause string) *guard {
	m := guardRe.FindStringSubmatch(clause)
	if m == nil || has(strings.ToLower(m[1]), "confiden", "sure", "certain") {
		return nil
	}
	op := guardOps[strings.ToLower(m[2])]
	value := strings.TrimSpace(strings.TrimLeft(m[3], "$€£ "))
	if strings.HasPrefix(value, "'") {
		value = `"` + strings.Trim(value, "'") + `"`
	} else if _, err := strconv.ParseFloat(strings.ReplaceAll(value, ",", "."), 64); err == nil {
		value = strings.ReplaceAll(value, ",", ".")
	} else if !strings.HasPrefix(value, `"`) {
		value = strconv.Quote(value)
	}
	if strings.Contains(strings.ToLower(m[0]), "unless") {
		op = map[string]string{">": "<=", ">=": "<", "<": ">=", "<=": ">", "==": "!=", "!=": "=="}[op]
	}
	return &guard{text: strings.TrimSpace(m[0]), field: strings.TrimSpace(m[1]), op: op, value: value}
}

// list splits "the total, the vendor and the date" into total, vendor, date.
func list(text string) []string {
	text = strings.NewReplacer(" and ", ",", " or ", ",", "/", ",").Replace(text)
	var out []string
	for _, f := range strings.Split(text, ",") {
		f = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(f), "the "))
		f = strings.TrimPrefix(f, "its ")
		f = strings.Trim(f, " .'\"")
		if f == "" || f == "it" || f == "them" {
			continue
		}
		out = append(out, f)
	}
	return out
}

func duration(l string) int {
	m := durationRe.FindStringSubmatch(l)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	unit := map[string]int{"second": 1, "sec": 1, "minute": 60, "min": 60, "hour": 3600, "hr": 3600, "day": 86400, "week": 604800}
	return n * unit[strings.ToLower(m[2])]
}

var guardLead = regexp.MustCompile(`(?i)^(?:but\s+)?(?:only\s+)?(?:if|when|unless)\b`)

// joinGuards puts a clause that is only a guard ("if the label is bug") in front of the clause it
// guards, which a comma had split from it.
func joinGuards(cs []string) []string {
	var out []string
	pending := ""
	for _, c := range cs {
		c = strings.TrimSpace(c)
		if pending != "" {
			c = pending + ", " + c
			pending = ""
		}
		if guardLead.MatchString(c) && guardOf(c) != nil {
			if _, ok := stepOf(c, strings.ToLower(c)); !ok {
				pending = c
				continue
			}
		}
		out = append(out, c)
	}
	if pending != "" {
		out = append(out, pending)
	}
	return out
}
