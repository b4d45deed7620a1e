package filter

import "github.com/lib/pq"

// pqArray and pqInt64Array pass Go slices as PostgreSQL arrays.
func pqArray(v []string) any { return pq.StringArray(v) }

func pqInt64Array(v []int64) any { return pq.Int64Array(v) }
