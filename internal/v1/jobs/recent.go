package jobs

import (
	"sync"
	"time"

	"github.com/google/uuid"
)

// recentCounts keeps, in process, the filtered counts this server read from or wrote to
// job_count_cache, until the moment each turns a minute old. A list's total and a cached count then
// cost no query while the count is fresh; the database table stays the cache shared by replicas.
type recentCounts struct {
	mu sync.Mutex
	m  map[recentKey]recentCount
}

type recentKey struct {
	app  uuid.UUID
	hash string
}

type recentCount struct {
	per       map[string]int64 // never changed once stored
	countedAt time.Time
	until     time.Time // local clock
}

// recentMax bounds the counts kept; past it, expired ones are dropped, and if none has, all are.
const recentMax = 10_000

func newRecentCounts() *recentCounts { return &recentCounts{m: map[recentKey]recentCount{}} }

func (r *recentCounts) get(app uuid.UUID, hash string) (map[string]int64, time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.m[recentKey{app, hash}]
	if !ok || !time.Now().Before(c.until) {
		return nil, time.Time{}, false
	}
	return c.per, c.countedAt, true
}

// put keeps a count that is age old now for the rest of its minute.
func (r *recentCounts) put(app uuid.UUID, hash string, per map[string]int64, countedAt time.Time, age time.Duration) {
	now := time.Now()
	c := recentCount{per: per, countedAt: countedAt, until: now.Add(cacheTTL - age)}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.m) >= recentMax {
		for k, v := range r.m {
			if !now.Before(v.until) {
				delete(r.m, k)
			}
		}
		if len(r.m) >= recentMax {
			r.m = map[recentKey]recentCount{}
		}
	}
	r.m[recentKey{app, hash}] = c
}
