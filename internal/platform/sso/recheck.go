package sso

import (
	"context"
	"errors"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"

	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/queue"
)

// A domain changes hands (sold, left to expire) without telling loopwork. Were a verification for
// ever, the former owner would keep routing its sign-ins and the new owner could never claim it; so
// each verified domain's record is looked up again once a day, and a domain whose record is missing
// from recheckFailures answers in a row (about three days, enough to ride out a botched DNS change)
// goes back to unverified. Only an answer counts: a lookup DNS does not answer (a timeout, a server
// failure) is no evidence about the domain, and loopwork's own DNS being down must never release one.
const (
	// recheckEvery is how often the job looks for domains due.
	recheckEvery = 10 * time.Minute
	// recheckAfter is how long a check holds.
	recheckAfter = 24 * time.Hour
	// recheckBatch is the most lookups one run makes, one at a time, each bounded by lookupTimeout:
	// the job never sends more than a trickle of queries, and a run ends well within the job timeout.
	recheckBatch = 50
	// recheckFailures is how many answers in a row without the record release a domain.
	recheckFailures = 3
)

// recheckArgs is a job that re-checks once. The leader no longer enqueues it periodically (see Sweep);
// the worker stays for jobs an older version left queued and for an operator's retry.
type recheckArgs struct{}

func (recheckArgs) Kind() string { return "sso_domain_recheck" }

// InsertOpts keeps one re-check at a time in the queue.
func (recheckArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true, ByPeriod: recheckEvery}}
}

type recheckWorker struct {
	river.WorkerDefaults[recheckArgs]
	s *Service
}

func (w *recheckWorker) Work(ctx context.Context, _ *river.Job[recheckArgs]) error {
	return w.s.Recheck(ctx, time.Now())
}

// Register adds the re-check of verified domains.
func (s *Service) Register(w *river.Workers) {
	river.AddWorker(w, &recheckWorker{s: s})
}

// Sweep is the re-check of verified domains, for the leader replica: at leadership's start and every
// recheckEvery, as the River periodic job it was did, without a job's insert, fetch and completion.
func (s *Service) Sweep() *queue.Sweep {
	return &queue.Sweep{Name: "sso_domain_recheck", Every: recheckEvery, Idle: recheckEvery,
		Run: func(ctx context.Context) (queue.Outcome, error) { return queue.Outcome{}, s.Recheck(ctx, time.Now()) }}
}

// Recheck looks up again the records of up to recheckBatch verified domains whose check is due at now,
// longest due first. A domain whose record holds its provider's token is checked until a day after
// now; one whose record is missing or different counts a failed check, and its recheckFailures-th in a
// row unverifies it. A domain whose lookup gets no answer keeps its state and goes behind the others
// due, so a few domains whose DNS never answers cannot take every run's turns.
func (s *Service) Recheck(ctx context.Context, now time.Time) error {
	var due []struct {
		ProviderID string `db:"provider_id"`
		Domain     string `db:"domain"`
		Token      string `db:"verification_token"`
	}
	if err := s.d.DB.SelectContext(ctx, &due, `SELECT provider_id, domain::text, verification_token FROM sso_domains
		WHERE verified_at IS NOT NULL AND next_check_at <= $1 ORDER BY next_check_at, domain LIMIT $2`,
		now, recheckBatch); err != nil {
		return err
	}
	for _, d := range due {
		records, err := s.lookupChallenge(ctx, d.Domain)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// The token in the condition skips a domain whose claim was dropped, or dropped and made
		// again, while its lookup ran: its new verification is not this check's business.
		switch {
		case err != nil:
			_, err = s.d.DB.ExecContext(ctx, `UPDATE sso_domains SET next_check_at = $4
				WHERE provider_id = $1 AND domain = $2 AND verification_token = $3 AND verified_at IS NOT NULL`,
				d.ProviderID, d.Domain, d.Token, now)
		case holds(records, challengeValue(d.Token)):
			_, err = s.d.DB.ExecContext(ctx, `UPDATE sso_domains SET checked_at = $4, next_check_at = $5, failed_checks = 0
				WHERE provider_id = $1 AND domain = $2 AND verification_token = $3 AND verified_at IS NOT NULL`,
				d.ProviderID, d.Domain, d.Token, now, now.Add(recheckAfter))
		default:
			err = s.failCheck(ctx, d.ProviderID, d.Domain, d.Token, now)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// failCheck counts an answer without the record; the last one allowed unverifies the domain, which
// then routes no sign-in and no longer keeps other organizations from claiming and verifying it. The
// provider counts as changed by the system, as the list of its verifications changed.
func (s *Service) failCheck(ctx context.Context, providerID, domain, token string, now time.Time) error {
	var released bool
	err := dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		err := tx.GetContext(ctx, &released, `UPDATE sso_domains SET checked_at = $4, failed_checks = failed_checks + 1,
			verified_at = CASE WHEN failed_checks + 1 >= $6 THEN NULL ELSE verified_at END,
			next_check_at = CASE WHEN failed_checks + 1 >= $6 THEN NULL ELSE $5::timestamptz END
			WHERE provider_id = $1 AND domain = $2 AND verification_token = $3 AND verified_at IS NOT NULL
			RETURNING verified_at IS NULL`, providerID, domain, token, now, now.Add(recheckAfter), recheckFailures)
		if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
			return nil // the claim changed while its lookup ran
		}
		if err != nil || !released {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE sso_providers SET modified_by = 'system' WHERE id = $1`, providerID)
		return err
	})
	if err == nil && released {
		s.log().Warn("single sign-on domain released: its TXT record was missing at its last daily checks",
			"domain", domain, "sso_provider_id", providerID, "failed_checks", recheckFailures)
	}
	return err
}
