package jobs

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/v1/access"
	"github.com/loopwork/loopwork/internal/v1/counts"
	"github.com/loopwork/loopwork/internal/v1/filter"
)

// cacheTTL is how old a cached filtered count may be (the contract's 60 seconds).
const cacheTTL = 60 * time.Second

// CountJobs counts the app's jobs per status. Without filters (or with statusIn alone) the status
// counters answer: they are exact in every transaction, so the answer is not a cached one. Other
// filters are counted with one GROUP BY, and the result is kept a minute under the filter's hash, in
// job_count_cache for every replica and in this process's memory (recentCounts).
// useCache=false always counts the rows themselves (and refreshes the cache).
func (s *Service) CountJobs(ctx context.Context, req v1api.CountJobsRequestObject) (v1api.CountJobsResponseObject, error) {
	g, set, sel, err := s.filtered(ctx, req.AppId, req.Params, nil)
	if err != nil {
		return nil, err
	}
	useCache := req.Params.UseCache == nil || *req.Params.UseCache
	per, cached, at, err := s.statusCounts(ctx, g, set, sel, useCache)
	if err != nil {
		return nil, err
	}
	return v1api.CountJobs200JSONResponse(perState(per, cached, at)), nil
}

// statusCounts counts a selection per status: from the status counters when they answer exactly,
// else from the cache when allowed and younger than a minute, else by counting (and caching) now.
// cached says the answer came from the cache, and at when it was counted.
func (s *Service) statusCounts(ctx context.Context, g *access.Grant, set filter.Set, sel selection, useCache bool) (per map[string]int64, cached bool, at time.Time, err error) {
	if useCache && sel.statuses != nil {
		all, err := counts.PerStatus(ctx, s.reader(), g.App.ID)
		if err != nil {
			return nil, false, at, err
		}
		per = map[string]int64{}
		for _, st := range sel.statuses {
			per[st] = all[st]
		}
		return per, false, time.Now(), nil
	}
	hash, err := filterHash(set)
	if err != nil {
		return nil, false, at, err
	}
	if !useCache {
		return s.countAndCache(ctx, g, sel, hash)
	}
	if per, at, ok := s.recent.get(g.App.ID, hash); ok {
		return per, true, at, nil
	}
	// Requests that miss the cache together share one reading of it and, when it is stale, one count:
	// a count takes time in proportion to the app's jobs, and under steady traffic every list that
	// arrived while it ran would otherwise start one of its own (the soak's lists did, each minute,
	// five at a time over hundreds of thousands of jobs). The shared work outlives a caller who leaves.
	type answer struct {
		per    map[string]int64
		cached bool
		at     time.Time
	}
	ch := s.counting.DoChan(g.App.ID.String()+"/"+hash, func() (any, error) {
		per, cached, at, err := s.cachedOrCount(context.WithoutCancel(ctx), g, sel, hash)
		return answer{per, cached, at}, err
	})
	select {
	case <-ctx.Done():
		return nil, false, at, ctx.Err()
	case r := <-ch:
		if r.Err != nil {
			return nil, false, at, r.Err
		}
		a := r.Val.(answer)
		return a.per, a.cached, a.at, nil
	}
}

// cachedOrCount answers from job_count_cache when its count is younger than a minute, else counts.
func (s *Service) cachedOrCount(ctx context.Context, g *access.Grant, sel selection, hash string) (per map[string]int64, cached bool, at time.Time, err error) {
	var c struct {
		Counts    []byte    `db:"counts"`
		CountedAt time.Time `db:"counted_at"`
		Age       float64   `db:"age"`
	}
	err = s.d.DB.GetContext(ctx, &c, `SELECT counts, counted_at, extract(epoch FROM now() - counted_at)::float8 AS age
		FROM job_count_cache
		WHERE app_id = $1 AND filter_hash = $2 AND counted_at > now() - make_interval(secs => $3)`,
		g.App.ID, hash, cacheTTL.Seconds())
	switch {
	case err == nil:
		if err := json.Unmarshal(c.Counts, &per); err != nil {
			return nil, false, at, err
		}
		s.recent.put(g.App.ID, hash, per, c.CountedAt, time.Duration(c.Age*float64(time.Second)))
		return per, true, c.CountedAt, nil
	case !errors.Is(err, sql.ErrNoRows):
		return nil, false, at, err
	}
	return s.countAndCache(ctx, g, sel, hash)
}

// countAndCache counts a selection per status and keeps the count for a minute.
func (s *Service) countAndCache(ctx context.Context, g *access.Grant, sel selection, hash string) (per map[string]int64, cached bool, at time.Time, err error) {
	if per, err = s.groupCount(ctx, sel, "j.status"); err != nil {
		return nil, false, at, err
	}
	stored, err := json.Marshal(per)
	if err != nil {
		return nil, false, at, err
	}
	err = s.d.DB.GetContext(ctx, &at, `INSERT INTO job_count_cache (app_id, filter_hash, counts, counted_at) VALUES ($1, $2, $3, now())
		ON CONFLICT (app_id, filter_hash) DO UPDATE SET counts = EXCLUDED.counts, counted_at = EXCLUDED.counted_at
		RETURNING counted_at`, g.App.ID, hash, string(stored))
	if err != nil {
		return nil, false, at, err
	}
	s.recent.put(g.App.ID, hash, per, at, 0)
	return per, false, at, nil
}

// CountJobsByProcessingState counts the app's jobs per processing state, exactly: no counter keeps
// processing states.
func (s *Service) CountJobsByProcessingState(ctx context.Context, req v1api.CountJobsByProcessingStateRequestObject) (v1api.CountJobsByProcessingStateResponseObject, error) {
	_, _, sel, err := s.filtered(ctx, req.AppId, req.Params, nil)
	if err != nil {
		return nil, err
	}
	per, err := s.groupCount(ctx, sel, "j.processing_state")
	if err != nil {
		return nil, err
	}
	out := v1api.JobsCountPerProcessingState{Queued: per["QUEUED"], Processing: per["PROCESSING"],
		AwaitingHuman: per["AWAITING_HUMAN"], Labeled: per["LABELED"], Reviewed: per["REVIEWED"], Done: per["DONE"], Error: per["ERROR"]}
	out.Total = out.Queued + out.Processing + out.AwaitingHuman + out.Labeled + out.Reviewed + out.Done + out.Error
	return v1api.CountJobsByProcessingState200JSONResponse(out), nil
}

// groupCount counts a selection per value of one column (a fixed column name, never input).
func (s *Service) groupCount(ctx context.Context, sel selection, col string) (map[string]int64, error) {
	var rows []struct {
		Key string `db:"k"`
		N   int64  `db:"n"`
	}
	if err := s.reader().SelectContext(ctx, &rows, `SELECT `+col+` AS k, count(*) AS n FROM jobs j WHERE `+sel.cond+` GROUP BY 1`, sel.args...); err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(rows))
	for _, r := range rows {
		out[r.Key] = r.N
	}
	return out, nil
}

func perState(per map[string]int64, cached bool, at time.Time) v1api.JobsCountPerState {
	out := v1api.JobsCountPerState{Scheduled: per["SCHEDULED"], InProgress: per["IN_PROGRESS"], Suspended: per["SUSPENDED"],
		Pending: per["PENDING"], Failed: per["FAILED"], Canceled: per["CANCELED"], Expired: per["EXPIRED"],
		Completed: per["COMPLETED"], Cached: &cached, CountedAt: &at}
	out.Total = out.Scheduled + out.InProgress + out.Suspended + out.Pending + out.Failed + out.Canceled + out.Expired + out.Completed
	return out
}

// filterHash is the SHA-256 of the filter's canonical JSON: instants in UTC and the set-valued
// filters sorted, so the same selection written two ways shares one cache entry.
func filterHash(set filter.Set) (string, error) {
	for _, list := range []*[]string{&set.Tags, &set.NotTags, &set.StatusIn, &set.Reviewed, &set.FeedbackTags} {
		*list = slices.Compact(slices.Sorted(slices.Values(*list)))
	}
	set.JobIds = slices.Compact(slices.Sorted(slices.Values(set.JobIds)))
	for _, t := range []**time.Time{&set.CreatedStartDate, &set.CreatedEndDate, &set.CompletedStartDate,
		&set.CompletedEndDate, &set.FeedbackMessageCreatedBefore} {
		if *t != nil {
			u := (*t).UTC()
			*t = &u
		}
	}
	b, err := json.Marshal(set)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
