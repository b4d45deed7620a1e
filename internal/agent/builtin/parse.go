// Package builtin is loopwork's offline agent: deterministic, with no language model, it turns plain
// requests ("when an invoice e-mail arrives, extract the total, send it to review if below 0.9
// confidence, then post it to https://…") into flow definitions built from the task types of the
// registry, edits a definition as a request asks ("also e-mail finance@…", "retry the POST 3 times",
// "remove the review") keeping what the request does not touch and listing what changed, says which
// parameters it assumed and which it could not fill in, and describes workflows in prose. It is the
// agent when no model is configured, and the fallback when one fails.
package builtin

import (
	"regexp"
	"strconv"
	"strings"
)

// step is one thing the request asks for, in order.
type step struct {
	kind      string // extract, classify, summarize, translate, review, post, fetch, email, wait, sql, transform, approve
	clause    string
	fields    []string
	labels    []string
	threshold float64 // review only when the model's confidence is below it (0: always)
	url       string
	to        []string
	seconds   int
	language  string
	table     string
	guard     *guard // the step runs only when this holds
}

// trigger is how executions start, when the request says.
type trigger struct{ kind, clause string }

var (
	verbs      = `e-?mail|mail|send|post|notify|forward|push|upload|submit|call|fetch|download|get|wait|pause|sleep|delay|extract|pull|capture|find|read|classify|categori[sz]e|label|tag|summari[sz]e|translate|review|check|verify|have|ask|approve|query|look|lookup|select|convert|transform|calculate|compute|format|map|rename|keep|combine|merge`
	thenRe     = regexp.MustCompile(`(?i)(?:,\s*|\s+)(?:and\s+)?(?:then|after that|finally)\s+`)
	andVerbRe  = regexp.MustCompile(`(?i)(?:,\s*|\s+and\s+)(` + verbs + `)\b`)
	splitter   = regexp.MustCompile(`(?:[.;]+(?:\s+|$)|;|\n)+`)
	urlRe      = regexp.MustCompile(`https?://[^\s,;)"']+[^\s,;)"'.]`)
	emailRe    = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}`)
	thresholdR = regexp.MustCompile(`(?i)(?:below|under|less than|lower than|<)\s*(\d+(?:\.\d+)?)\s*(%|percent)?`)
	durationRe = regexp.MustCompile(`(?i)(\d+)\s*(second|sec|minute|min|hour|hr|day|week)s?`)
	fieldsRe   = regexp.MustCompile(`(?i)(?:extract|pull out|get|read|capture|find)\s+(?:the\s+)?(.+?)(?:\s+from\b.*|\s+out of\b.*|$)`)
	labelsRe   = regexp.MustCompile(`(?i)\b(?:as|into)\s+(.+)$`)
	languageRe = regexp.MustCompile(`(?i)\binto\s+([A-Za-z]+)|\bto\s+([A-Z][a-z]+)`)
	tableRe    = regexp.MustCompile(`(?i)\b(?:the\s+)?([a-z_][a-z0-9_]*)\s+table\b|\btable\s+([a-z_][a-z0-9_]*)`)
)

// clauses splits a request into its steps: at sentence ends, at "then", and before a known verb that
// follows a comma or "and" (a comma inside a list of fields does not split).
func clauses(request string) []string {
	r := thenRe.ReplaceAllString(request, "; ")
	r = andVerbRe.ReplaceAllString(r, "; $1")
	return splitter.Split(strings.TrimSpace(r), -1)
}

// parse reads the request clause by clause.
func parse(request string) (*trigger, []step) {
	var trig *trigger
	var steps []step
	for _, clause := range joinGuards(clauses(request)) {
		clause = strings.TrimSpace(clause)
		if clause == "" {
			continue
		}
		l := strings.ToLower(clause)
		if t := triggerOf(l); t != "" && trig == nil && len(steps) == 0 {
			trig = &trigger{kind: t, clause: clause}
			continue
		}
		if s, ok := stepOf(clause, l); ok {
			steps = append(steps, s)
		}
	}
	return trig, steps
}

func triggerOf(l string) string {
	switch {
	case strings.HasPrefix(l, "when") || strings.HasPrefix(l, "whenever") || strings.HasPrefix(l, "each time") || strings.HasPrefix(l, "every time") || strings.HasPrefix(l, "on "):
		switch {
		case has(l, "e-mail", "email", "mail arrives", "message arrives"):
			return "email"
		case has(l, "webhook", "request comes", "job", "submitted", "posted"):
			return "api"
		}
		return "api"
	case strings.HasPrefix(l, "every ") || strings.HasPrefix(l, "each day") || strings.HasPrefix(l, "daily") || strings.HasPrefix(l, "hourly"):
		return "schedule"
	}
	return ""
}

// leading names the step by the clause's first verb, which says more than any word after it ("e-mail
// the summary" sends mail; "classify the review" classifies); "" when the first word decides nothing.
func leading(l string) string {
	f := strings.Fields(strings.NewReplacer(",", " ", "'", " ").Replace(l))
	for len(f) > 0 && (f[0] == "and" || f[0] == "please" || f[0] == "also" || f[0] == "then") {
		f = f[1:]
	}
	if len(f) == 0 {
		return ""
	}
	rest := strings.Join(f[1:], " ")
	switch f[0] {
	case "e-mail", "email", "mail", "notify":
		return "email"
	case "send", "forward", "push", "upload", "submit", "post":
		switch {
		case has(rest, "review", "a person", "someone", "human"):
			return "review"
		case has(rest, "e-mail", "email", "mail") && !has(rest, "http"):
			return "email"
		}
		return "post"
	case "call":
		return "post"
	case "fetch", "download":
		return "fetch"
	case "wait", "pause", "sleep", "delay":
		return "wait"
	case "extract", "pull", "capture":
		return "extract"
	case "classify", "categorize", "categorise", "label", "tag":
		return "classify"
	case "summarize", "summarise":
		return "summarize"
	case "translate":
		return "translate"
	case "review", "check", "verify":
		return "review"
	case "have", "ask", "let":
		if has(rest, "approve", "sign off") {
			return "approve"
		}
		return "review"
	case "approve":
		return "approve"
	case "query", "look", "lookup", "select":
		return "sql"
	case "convert", "transform", "calculate", "compute", "format", "map", "rename", "keep", "combine", "merge":
		return "transform"
	}
	return ""
}

func has(l string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

func stepOf(clause, l string) (step, bool) {
	s := step{clause: clause}
	if m := urlRe.FindString(clause); m != "" {
		s.url = m
		l = strings.Replace(l, strings.ToLower(m), " ", 1)
	}
	s.to = emailRe.FindAllString(clause, -1)
	for _, a := range s.to {
		l = strings.Replace(l, strings.ToLower(a), " ", 1)
	}
	s.kind = leading(l)
	if s.kind == "" {
		s.kind = keyword(l, s.url)
	}
	if s.kind != "" && s.kind != "review" {
		s.guard = guardOf(clause)
	}
	switch s.kind {
	case "":
		return s, false
	case "wait":
		s.seconds = duration(l)
	case "review":
		if m := thresholdR.FindStringSubmatch(l); m != nil && has(l, "confiden", "sure", "certain", "score") {
			s.threshold, _ = strconv.ParseFloat(m[1], 64)
			if m[2] != "" || s.threshold > 1 {
				s.threshold /= 100
			}
		}
	case "classify":
		if m := labelsRe.FindStringSubmatch(clause); m != nil {
			s.labels = list(m[1])
		}
	case "translate":
		if m := languageRe.FindStringSubmatch(clause); m != nil {
			s.language = strings.TrimSpace(m[1] + m[2])
		}
	case "extract":
		if m := fieldsRe.FindStringSubmatch(clause); m != nil {
			s.fields = list(m[1])
		}
	case "sql":
		if m := tableRe.FindStringSubmatch(l); m != nil {
			s.table = m[1] + m[2]
		}
	}
	return s, true
}

// keyword names the step of a clause whose first word did not, by the words in it.
func keyword(l, url string) string {
	switch {
	case has(l, "wait", "pause", "sleep", "delay"):
		return "wait"
	case has(l, "review", "have someone check", "human", "verify"):
		return "review"
	case has(l, "approve", "approval", "sign off", "sign-off"):
		return "approve"
	case has(l, "classify", "categorize", "categorise", "sentiment"):
		return "classify"
	case has(l, "summarize", "summarise", "sum up"):
		return "summarize"
	case has(l, "translate"):
		return "translate"
	case has(l, "extract", "pull out", "capture"):
		return "extract"
	case has(l, "e-mail", "email", "notify") && !has(l, "post", "webhook"):
		return "email"
	case has(l, "query", "look up", "lookup", "database", "sql", " table"):
		return "sql"
	case has(l, "fetch", "download"):
		return "fetch"
	case has(l, "post", "send", "webhook", "forward", "push", "upload", "submit") || url != "":
		return "post"
	case has(l, "transform", "convert", "reshape", "format", "keep only", "rename", "calculate", "compute"):
		return "transform"
	}
	return ""
}
