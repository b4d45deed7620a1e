package builtin

import (
	"regexp"
	"slices"
	"strings"
)

var (
	addIntent = regexp.MustCompile(`(?i)^(?:and\s+)?(?:also|then|additionally|afterwards|finally|add|another)\b|\b(?:too|as well|also|another|in addition)\b`)
	quotedRe  = regexp.MustCompile(`["“]([^"”]{1,1000})["”]|(?:^|\s)['‘]([^'’]{1,1000})['’]`)
	paramRe   = regexp.MustCompile(`(?i)\b(prompt|instructions?|subject|message|text|body)\b`)
	methodRe  = regexp.MustCompile(`\b(PUT|PATCH|POST|DELETE|GET)\b`)
	peopleRe  = regexp.MustCompile(`(?i)\b(\d+|two|three|four|five)\s+(?:people|persons|approvals|approvers|reviewers|managers|users)\b`)
	copyRe    = regexp.MustCompile(`(?i)\b(?:cc|copy|add\b.*\bto the (?:recipients|e-?mail|list))`)
)

// setParam changes a parameter of a task the flow has: a URL, recipients, a prompt or instructions, a
// subject, a method, the approvals a review needs, a wait, labels or a language.
func (e *editor) setParam(clause, l string) bool {
	adding := addIntent.MatchString(l)
	b := e.b
	if url := urlRe.FindString(clause); url != "" && !adding {
		if name := b.httpTarget(strings.Replace(l, strings.ToLower(url), " ", 1)); name != "" {
			return e.set(name, "url", url, "request")
		}
	}
	if to := emailRe.FindAllString(clause, -1); len(to) > 0 && len(b.ofType("email")) > 0 && (!adding || copyRe.MatchString(l)) {
		name := e.oneOf(l, "email", "e-mail")
		if name == "" {
			return e.question != ""
		}
		list := []any{}
		if copyRe.MatchString(l) {
			list, _ = params(b.find(name))["to"].([]any)
		}
		for _, a := range to {
			if !slices.Contains(list, any(a)) {
				list = append(list, a)
			}
		}
		params(b.find(name))["to"] = list
		return true
	}
	if q := quotedRe.FindStringSubmatch(clause); q != nil && paramRe.MatchString(strings.Replace(l, strings.ToLower(q[0]), " ", 1)) {
		return e.setText(l, q)
	}
	if m := methodRe.FindStringSubmatch(clause); m != nil && has(l, "use ", "make it", "switch", "instead", "change") {
		return e.set(b.httpTarget(l), "method", m[1], "request")
	}
	if m := peopleRe.FindStringSubmatch(l); m != nil && has(l, "approv", "review", "sign") && !adding {
		name := e.oneOf(l, "human_review", "review")
		if name == "" {
			return e.question != "" || e.none("review")
		}
		params(b.find(name))["required_approvals"] = number(m[1])
		return true
	}
	if d := duration(l); d > 0 && has(l, "wait", "delay", "pause") && len(b.ofType("delay")) > 0 && !adding {
		return e.set(e.oneOf(l, "delay", "wait"), "seconds", d, "wait")
	}
	// "… instead" changes what the flow has; with nothing of that kind it adds nothing unasked.
	if wordIn(l, "instead") {
		return e.none(orDefault(mentions(l), "such task"))
	}
	return false
}

// set gives a task's parameter a value; a task not found asks or declines.
func (e *editor) set(name, param string, value any, what string) bool {
	if name == "" {
		return e.question != ""
	}
	params(e.b.find(name))[param] = value
	return true
}

// oneOf is the task of a type the phrase names, or the only one of that type.
func (e *editor) oneOf(l, typ, what string) string {
	var named []string
	for _, n := range e.b.refer(l) {
		if typeOf(e.b.find(n)) == typ {
			named = append(named, n)
		}
	}
	if len(named) == 0 {
		named = e.b.ofType(typ)
	}
	switch len(named) {
	case 0:
		return ""
	case 1:
		return named[0]
	}
	e.ask(what, named)
	return ""
}

// httpTarget is the HTTP call a phrase means: one it names, else the only POST, else the only call.
func (b *builder) httpTarget(l string) string {
	var named []string
	for _, n := range b.refer(l) {
		if typeOf(b.find(n)) == "http_request" {
			named = append(named, n)
		}
	}
	if len(named) == 1 {
		return named[0]
	}
	var posts []string
	for _, n := range b.ofType("http_request") {
		if m, _ := params(b.find(n))["method"].(string); strings.EqualFold(m, "POST") {
			posts = append(posts, n)
		}
	}
	if len(posts) == 1 {
		return posts[0]
	}
	if calls := b.ofType("http_request"); len(calls) == 1 {
		return calls[0]
	}
	return ""
}

// setText sets a quoted text: an llm task's prompt, a review's instructions, an e-mail's subject or body.
func (e *editor) setText(l string, q []string) bool {
	word := strings.ToLower(paramRe.FindString(strings.Replace(l, strings.ToLower(q[0]), " ", 1)))
	typ, param := "llm", "prompt"
	switch {
	case strings.HasPrefix(word, "instruction"):
		typ, param = "human_review", "instructions"
	case word == "subject":
		typ, param = "email", "subject"
	case word == "message" || word == "text" || word == "body":
		typ, param = "email", "body"
	}
	name := e.oneOf(l, typ, strings.ReplaceAll(typ, "_", " ")+" task")
	if name == "" {
		return e.question != ""
	}
	text := q[1] + q[2]
	if param == "prompt" && !strings.Contains(text, "{{") {
		text += "\n\n{{ . }}"
	}
	params(e.b.find(name))[param] = text
	return true
}
