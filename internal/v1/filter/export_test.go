package filter_test

import "github.com/lib/pq"

func pqArray(v []string) any { return pq.StringArray(v) }
