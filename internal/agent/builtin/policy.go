package builtin

import (
	"regexp"
	"strconv"
	"strings"
)

var (
	retryRe    = regexp.MustCompile(`(?i)\bretr(?:y|ies|ied)\b`)
	noRetryRe  = regexp.MustCompile(`(?i)\b(?:don'?t|do not|never|no|without)\s+(?:retr|re-?try)`)
	timesRe    = regexp.MustCompile(`(?i)\b(\d+|once|twice|one|two|three|four|five|six|seven|eight|nine|ten)\s*(times|x|attempts|tries|retries)?\b`)
	backoffRe  = regexp.MustCompile(`(?i)\b(?:every|wait(?:ing)?|with|after)\s+(\d+)\s*(second|sec|minute|min|hour)s?\s*(?:apart|between|in between)?`)
	timeoutRe  = regexp.MustCompile(`(?i)\btime\s*-?\s*outs?\b|\bwithin\b|\bno (?:longer|more) than\b|\bat most\b`)
	onTimeout  = regexp.MustCompile(`(?i)\b(approve|accept|reject|fail)`)
	wordNumber = map[string]int{"once": 1, "twice": 2, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
		"seven": 7, "eight": 8, "nine": 9, "ten": 10}
)

func number(s string) int {
	if n, ok := wordNumber[strings.ToLower(s)]; ok {
		return n
	}
	n, _ := strconv.Atoi(s)
	return n
}

// policy sets how a task is retried and how long it may take: "retry the POST 3 times", "time out the
// webhook after 20 seconds", "if nobody reviews within 2 days, reject it", "don't retry the e-mail".
func (e *editor) policy(clause, l string) bool {
	retry, timeout := retryRe.MatchString(l), timeoutRe.MatchString(l) && duration(l) > 0
	if !retry && !timeout {
		return false
	}
	what := strings.NewReplacer("retry", " ", "retries", " ", "timeout", " ", "time out", " ").Replace(l)
	targets := e.b.refer(what)
	switch {
	case len(targets) > 0:
	case timeout && !retry && has(l, "review", "approv", "nobody", "no one"):
		if targets = e.b.ofType("human_review"); len(targets) == 0 {
			e.question = "The workflow has no review to give a time limit. Add one first, for example \"have someone review it\"."
			return true
		}
	case mentions(what) != "":
		return e.none(mentions(what))
	default:
		// Unnamed: the calls out of the flow, which are what fails for a while and then works again.
		if targets = append(e.b.ofType("http_request"), e.b.ofType("email")...); len(targets) == 0 {
			return e.none("HTTP call or e-mail")
		}
	}
	for _, name := range targets {
		t := e.b.find(name)
		if retry {
			e.retry(t, l)
		}
		if timeout {
			e.timeout(t, l)
		}
	}
	return len(targets) > 0
}

// retry: "retry 3 times" is 3 more tries after the first (max_attempts 4); "3 attempts" is 3 in all.
func (e *editor) retry(t map[string]any, l string) {
	if noRetryRe.MatchString(l) {
		delete(t, "retry")
		return
	}
	attempts := httpAttempts
	if m := timesRe.FindStringSubmatch(l); m != nil && number(m[1]) > 0 {
		attempts = number(m[1]) + 1
		if u := strings.ToLower(m[2]); u == "attempts" || u == "tries" {
			attempts = number(m[1])
		}
	}
	backoff := httpBackoffSeconds
	if r, ok := t["retry"].(map[string]any); ok {
		if s, ok := r["backoff_seconds"].(float64); ok {
			backoff = int(s)
		}
	}
	if m := backoffRe.FindStringSubmatch(l); m != nil {
		backoff = duration(m[1] + " " + m[2])
	}
	t["retry"] = map[string]any{"max_attempts": min(max(attempts, 1), 20), "backoff_seconds": min(max(backoff, 0), 3600)}
}

// timeout bounds a task: a review's own limit and what an expired one does, an HTTP call's wait for
// its answer, any other task's run.
func (e *editor) timeout(t map[string]any, l string) {
	seconds := duration(l)
	switch typeOf(t) {
	case "human_review":
		params(t)["timeout_seconds"] = seconds
		if m := onTimeout.FindStringSubmatch(l); m != nil {
			params(t)["on_timeout"] = map[string]string{"approve": "approve", "accept": "approve", "reject": "reject", "fail": "fail"}[strings.ToLower(m[1])]
		}
	case "http_request":
		// A call waits at most 10 minutes for its answer (the parameter's maximum).
		if seconds > 600 {
			seconds = 600
			e.b.assume(nameOf(t), "timeout_seconds", 600)
		}
		params(t)["timeout_seconds"] = seconds
	default:
		t["timeout_seconds"] = seconds
	}
}

var thresholdTo = regexp.MustCompile(`(?i)(?:threshold|confidence)\s+(?:to|of|at|=)\s*(\d+(?:\.\d+)?)\s*(%|percent)?`)

var confidenceRe = regexp.MustCompile(`(confidence\s*[<>]=?\s*)(\d+(?:\.\d+)?)`)

// threshold changes the confidence a review is asked below, when the flow has such a check.
func (e *editor) threshold(clause, l string) bool {
	m := thresholdR.FindStringSubmatch(l)
	if m == nil {
		m = thresholdTo.FindStringSubmatch(l)
	}
	if m == nil || !has(l, "confiden", "sure", "certain", "threshold") {
		return false
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	if m[2] != "" || v > 1 {
		v /= 100
	}
	changed := false
	for _, t := range e.b.tasks {
		if x, ok := params(t)["expression"].(string); ok && typeOf(t) == "condition" && confidenceRe.MatchString(x) {
			params(t)["expression"] = confidenceRe.ReplaceAllString(x, "${1}"+strconv.FormatFloat(v, 'f', -1, 64))
			changed = true
		}
	}
	return changed
}
