package measurerops

import "github.com/loopwork/loopwork/internal/v1/metrics"

// equal compares two decoded JSON values as the metrics do (canonical JSON).
func equal(a, b any) bool {
	v, _, _ := metrics.Compute("exact_match", []metrics.Pair{{Want: a, Got: b}})
	return v == 1
}
