package llm

import (
	"fmt"
	"slices"
	"strings"
)

// enumCues are words and phrases that point at common labels of classifications, by the label's
// meaning; a label they do not know is found by its own words only. A cue matches at a word's start
// ("crash" in "crashes"); one of three letters or fewer only as a whole word.
var enumCues = map[string][]string{
	"bug": {"crash", "error", "broken", "bug", "exception", "fails", "failed", "failing", "doesn't work",
		"does not work", "not working", "nothing works", "stopped working", "freez", "wrong"},
	"feature": {"please add", "would be nice", "could you support", "can you support", "can you add", "could you add",
		"it would be great", "feature request", "wish", "suggest", "support for", "would love"},
	"question": {"how do i", "how can i", "how to", "is it possible", "is there a way", "what is", "where can i",
		"can i", "?"},
	"positive": {"great", "love", "thanks", "thank you", "excellent", "awesome", "amazing", "happy", "wonderful",
		"perfect", "fantastic", "good", "pleased", "delighted"},
	"negative": {"terrible", "angry", "refund", "awful", "bad", "hate", "disappointed", "worst", "horrible",
		"broken", "poor", "useless", "unacceptable", "furious", "complain"},
	"urgent": {"urgent", "asap", "immediately", "as soon as possible", "emergency", "critical"},
	"low":    {"no rush", "whenever", "minor", "low priority", "not urgent"},
}

// cueAliases are labels that mean one of enumCues' labels.
var cueAliases = map[string]string{"defect": "bug", "incident": "bug", "problem": "bug", "enhancement": "feature",
	"feature request": "feature", "request": "feature", "support": "question", "inquiry": "question",
	"enquiry": "question", "help": "question", "praise": "positive", "happy": "positive", "complaint": "negative",
	"unhappy": "negative", "high": "urgent", "critical": "urgent"}

// fallbacks are labels for "none of the others", chosen (with little confidence) when nothing matches,
// and never by their own word: "other" in a sentence says nothing of its class.
var fallbacks = []string{"neutral", "other", "unknown", "none", "general", "normal", "medium", "misc"}

// choose picks a field's enum value: the one written after one of its labels; else the one whose words
// or cues the input has most of (its own word counts 3, a cue 2, a question mark 1), ties going to the
// first in the enum. Sure when one value alone matched (less when only by cues), less when several did;
// when none did, a fallback value if the enum has one.
func (d *doc) choose(labels []string, enum []any) (any, float64) {
	for _, h := range d.labelled(labels) {
		v := strings.Join(words(h.value), " ")
		for _, e := range enum {
			if w := strings.Join(words(fmt.Sprint(e)), " "); w != "" && (v == w || strings.HasPrefix(v, w+" ")) {
				return e, sureLabelled
			}
		}
	}
	best, bestScore, matched, direct := -1, 0, 0, false
	for i, e := range enum {
		s, ok := e.(string)
		if !ok {
			continue
		}
		w := strings.Join(words(s), " ")
		score, own := 0, false
		if w != "" && !slices.Contains(fallbacks, w) && (hasCue(d.lower, w, true) || hasCue(d.lower, w+"s", true)) {
			score, own = 3, true
		}
		key := w
		if a, ok := cueAliases[w]; ok {
			key = a
		}
		for _, c := range enumCues[key] {
			switch {
			case c == "?" && strings.Contains(d.text, "?"):
				score++
			case c != "?" && hasCue(d.lower, c, len(c) <= 3):
				score += 2
			}
		}
		if score > 0 {
			matched++
		}
		if score > bestScore {
			best, bestScore, direct = i, score, own
		}
	}
	switch {
	case matched == 1 && direct:
		return enum[best], sureLabelled
	case matched == 1:
		return enum[best], surePattern
	case matched > 1:
		return enum[best], sureAmbiguous
	}
	for _, e := range enum {
		if s, ok := e.(string); ok && slices.Contains(fallbacks, strings.ToLower(s)) {
			return e, sureAmbiguous
		}
	}
	return nil, sureMissing
}

// hasCue reports cue (lower case) at the start of a word of lower, and as a whole word when whole.
func hasCue(lower, cue string, whole bool) bool {
	for from := 0; from < len(lower); {
		i := strings.Index(lower[from:], cue)
		if i < 0 {
			return false
		}
		i += from
		from = i + 1
		j := i + len(cue)
		if (i == 0 || !isWord(lower[i-1])) && (!whole || j == len(lower) || !isWord(lower[j])) {
			return true
		}
	}
	return false
}
