package metrics_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/loopwork/loopwork/internal/v1/metrics"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// labels are five classified jobs, worked by hand:
//
//	want  cat cat dog dog bird
//	got   cat dog dog dog cat
//
// cat: TP 1, FN 1, FP 1 → P 1/2, R 1/2, F1 1/2; dog: TP 2, FN 0, FP 1 → P 2/3, R 1, F1 4/5;
// bird: TP 0, FN 1, FP 0 → P 0, R 0, F1 0. Macro averages: P 7/18, R 1/2, F1 13/30; accuracy 3/5.
var labels = []metrics.Pair{{Want: "cat", Got: "cat"}, {Want: "cat", Got: "dog"}, {Want: "dog", Got: "dog"},
	{Want: "dog", Got: "dog"}, {Want: "bird", Got: "cat"}}

func TestClassificationByHand(t *testing.T) {
	for name, want := range map[string]float64{"accuracy": 3.0 / 5, "precision": 7.0 / 18, "recall": 0.5, "f1": 13.0 / 30,
		"exact_match": 3.0 / 5} {
		got, n, ok := metrics.Compute(name, labels)
		if !ok || n != 5 || !near(got, want) {
			t.Errorf("%s = %v (n %d, %v), want %v", name, got, n, ok, want)
		}
	}
}

// TestStructuredValues: objects are compared whole (key order and number spelling do not matter) by
// exact_match and similarity, and are not classes for accuracy.
func TestStructuredValues(t *testing.T) {
	var a, b any
	json.Unmarshal([]byte(`{"x": 1, "y": [1, 2]}`), &a)
	json.Unmarshal([]byte(`{"y": [1, 2.0], "x": 1.0}`), &b)
	pairs := []metrics.Pair{{Want: a, Got: b}, {Want: a, Got: nil}}
	if v, n, _ := metrics.Compute("exact_match", pairs); v != 0.5 || n != 2 {
		t.Fatalf("exact_match %v over %d", v, n)
	}
	if _, _, ok := metrics.Compute("accuracy", pairs); ok {
		t.Fatal("objects counted as classes")
	}
	if v, _, _ := metrics.Compute("similarity", pairs[:1]); v != 1 {
		t.Fatalf("equal objects have similarity %v", v)
	}
}

func TestSimilarityByHand(t *testing.T) {
	// kitten → sitting: three edits, the longer has seven characters.
	for _, c := range []struct {
		a, b string
		want float64
	}{{"kitten", "sitting", 1 - 3.0/7}, {"", "", 1}, {"abc", "", 0}, {"flaw", "lawn", 0.5}, {"größe", "grösse", 1 - 2.0/6}} {
		if got := metrics.Similarity(c.a, c.b); !near(got, c.want) {
			t.Errorf("%q~%q = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	pairs := []metrics.Pair{{Want: "kitten", Got: "sitting"}, {Want: "flaw", Got: "lawn"}}
	if v, n, _ := metrics.Compute("similarity", pairs); n != 2 || !near(v, (1-3.0/7+0.5)/2) {
		t.Fatalf("mean similarity %v", v)
	}
}

func TestLatencyAndCost(t *testing.T) {
	pairs := []metrics.Pair{{LatencySeconds: 2, Credits: 1}, {LatencySeconds: 4, Credits: 0}, {LatencySeconds: 9, Credits: 2}}
	if v, _, _ := metrics.Compute("latency_seconds", pairs); v != 5 {
		t.Fatalf("latency %v", v)
	}
	if v, _, _ := metrics.Compute("cost_credits", pairs); v != 1 {
		t.Fatalf("cost %v", v)
	}
	if _, _, ok := metrics.Compute("latency_seconds", nil); ok {
		t.Fatal("a mean of nothing")
	}
}

// TestAlphaByHand: three jobs labeled twice — (a,a), (a,b), (b,b). The coincidences are o[a][a] = 2,
// o[a][b] = o[b][a] = 1, o[b][b] = 2; n_a = n_b = 3, n = 6; D_o = 2, D_e = 2·3·3/5 = 3.6;
// α = 1 − 2/3.6 = 4/9.
func TestAlphaByHand(t *testing.T) {
	a, n, ok := metrics.Alpha([][]string{{"a", "a"}, {"a", "b"}, {"b", "b"}, {"c"}})
	if !ok || n != 3 || !near(a, 4.0/9) {
		t.Fatalf("alpha %v over %d (%v)", a, n, ok)
	}
	if a, _, _ := metrics.Alpha([][]string{{"a", "a"}, {"b", "b"}}); a != 1 {
		t.Fatalf("perfect agreement: %v", a)
	}
	// Three labels on one job weigh each of its pairs 1/2: (a,a,b) and (b,b) give o[a][a] = 1,
	// o[a][b] = o[b][a] = 1, o[b][b] = 2; n_a = 2, n_b = 3, n = 5; D_o = 2, D_e = 12/4 = 3; α = 1/3.
	if a, _, _ := metrics.Alpha([][]string{{"a", "a", "b"}, {"b", "b"}}); !near(a, 1.0/3) {
		t.Fatalf("uneven units: %v", a)
	}
	if _, _, ok := metrics.Alpha([][]string{{"a", "a"}}); ok {
		t.Fatal("alpha of one label value")
	}
}
