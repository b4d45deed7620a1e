// Package metrics is the measurer's arithmetic: each MetricName of the /v1 contract computed from pairs
// of a baseline value and a job's value of one response field, and agreement between labelers
// (Krippendorff's alpha). It is pure: no database, no clock, so every formula is tested against values
// computed by hand.
package metrics

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/loopwork/loopwork/internal/textdist"
)

// Pair is one measured job: the baseline's value of the field (Want) and the job's (Got), decoded JSON
// with nil for a missing field; the job's latency (submission to completion) and cost in credits.
type Pair struct {
	Want, Got      any
	LatencySeconds float64
	Credits        float64
}

// Names are the metrics Compute knows, in the contract's order.
var Names = []string{"accuracy", "precision", "recall", "f1", "exact_match", "similarity", "latency_seconds", "cost_credits"}

// Compute answers the metric over the pairs and the number of pairs it was computed from; ok is false
// when no pair qualifies (no classification labels for the classification metrics, no pairs at all).
func Compute(name string, pairs []Pair) (value float64, n int, ok bool) {
	switch name {
	case "exact_match":
		return mean(pairs, func(p Pair) (float64, bool) { return b2f(canonical(p.Got) == canonical(p.Want)), true })
	case "accuracy":
		return mean(pairs, func(p Pair) (float64, bool) {
			if !isLabel(p.Want) {
				return 0, false
			}
			return b2f(canonical(p.Got) == canonical(p.Want)), true
		})
	case "precision", "recall", "f1":
		return classification(name, pairs)
	case "similarity":
		return mean(pairs, func(p Pair) (float64, bool) { return Similarity(text(p.Want), text(p.Got)), true })
	case "latency_seconds":
		return mean(pairs, func(p Pair) (float64, bool) { return p.LatencySeconds, true })
	case "cost_credits":
		return mean(pairs, func(p Pair) (float64, bool) { return p.Credits, true })
	}
	panic(fmt.Sprintf("metrics: unknown metric %q", name))
}

func mean(pairs []Pair, f func(Pair) (float64, bool)) (float64, int, bool) {
	var sum float64
	n := 0
	for _, p := range pairs {
		if v, ok := f(p); ok {
			sum += v
			n++
		}
	}
	if n == 0 {
		return 0, 0, false
	}
	return sum / float64(n), n, true
}

// classification macro-averages precision, recall or F1 over the classes found among the baseline
// values (each a label: string, number or boolean). For a class c: precision = TP/(TP+FP) (0 when the
// jobs never answered c), recall = TP/(TP+FN), F1 = 2PR/(P+R) (0 when P+R = 0).
func classification(name string, pairs []Pair) (float64, int, bool) {
	type counts struct{ tp, fp, fn float64 }
	classes := map[string]*counts{}
	var used []Pair
	for _, p := range pairs {
		if isLabel(p.Want) {
			used = append(used, p)
			if classes[canonical(p.Want)] == nil {
				classes[canonical(p.Want)] = &counts{}
			}
		}
	}
	if len(used) == 0 {
		return 0, 0, false
	}
	for _, p := range used {
		want, got := canonical(p.Want), canonical(p.Got)
		if want == got {
			classes[want].tp++
			continue
		}
		classes[want].fn++
		if c, ok := classes[got]; ok {
			c.fp++
		}
	}
	var sum float64
	for _, c := range classes {
		var prec, rec float64
		if c.tp+c.fp > 0 {
			prec = c.tp / (c.tp + c.fp)
		}
		if c.tp+c.fn > 0 {
			rec = c.tp / (c.tp + c.fn)
		}
		switch name {
		case "precision":
			sum += prec
		case "recall":
			sum += rec
		default:
			if prec+rec > 0 {
				sum += 2 * prec * rec / (prec + rec)
			}
		}
	}
	return sum / float64(len(classes)), len(used), true
}

// isLabel is whether a value can be a class: a string, number or boolean.
func isLabel(v any) bool {
	switch v.(type) {
	case string, bool, float64, json.Number:
		return true
	}
	return false
}

// canonical is a value's JSON with sorted keys and numbers as JSON writes them, so equal values compare
// equal whatever their source.
func canonical(v any) string {
	if n, ok := v.(json.Number); ok {
		if f, err := n.Float64(); err == nil {
			v = f
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(sortKeys(v)); err != nil {
		return fmt.Sprint(v)
	}
	return string(bytes.TrimRight(b.Bytes(), "\n"))
}

func sortKeys(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x)) // encoding/json writes map keys sorted
		for k, e := range x {
			out[k] = sortKeys(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = sortKeys(e)
		}
		return out
	}
	return v
}

// Similarity is 1 − (Levenshtein distance in characters) / (length of the longer text): 1 for equal
// texts (two empty texts included), 0 for texts that share nothing.
func Similarity(a, b string) float64 {
	ra, rb := []rune(a), []rune(b)
	longer := max(len(ra), len(rb))
	if longer == 0 {
		return 1
	}
	return 1 - float64(textdist.Levenshtein(ra, rb))/float64(longer)
}

// text is a value as the similarity compares it: a string as it is, anything else as canonical JSON,
// a missing value as nothing.
func text(v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return canonical(v)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
