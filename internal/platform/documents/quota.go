package documents

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/lib/pq"
)

// quotaError refuses an import that would take the organization's tables past its quota.
type quotaError struct{ need, quota int64 }

func (e *quotaError) Error() string {
	return fmt.Sprintf("the organization's document tables would take %s, more than its quota of %s; delete documents it no longer needs",
		megabytes(e.need), megabytes(e.quota))
}

func megabytes(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }

// quota refuses a use of n bytes past the organization's quota.
func (s *Service) quota(n int64) error {
	if n > s.d.Limits.QuotaBytes {
		return &quotaError{need: n, quota: s.d.Limits.QuotaBytes}
	}
	return nil
}

// withinQuota refuses, before anything is written, an import of a file of size bytes whose table would
// take the organization past its quota; except is the table the import replaces. A table takes at
// least its file's size, so this is a lower bound; the import measures the table itself once written.
func (s *Service) withinQuota(ctx context.Context, t tenantDB, except string, size int64) error {
	n, err := s.used(ctx, t, except)
	if err != nil {
		return err
	}
	return s.quota(n + size)
}

// quotaBefore is withinQuota for an organization that may not have a database yet (nothing used).
func (s *Service) quotaBefore(ctx context.Context, org uuid.UUID, except string, size int64) error {
	t, ok, err := s.existing(ctx, org)
	if err != nil {
		return err
	}
	if !ok {
		return s.quota(size)
	}
	return s.withinQuota(ctx, t, except, size)
}

// importFailure says why an import could not run in words for the organization: never the text of a
// connection error, which can name hosts, users and connection strings of the documents cluster.
func importFailure(err error) string {
	var ce *pgconn.ConnectError
	var ne net.Error
	var pgErr *pgconn.PgError
	var pqErr *pq.Error
	switch {
	case errors.Is(err, errPrivilege):
		return "the organization's document database could not be created; the server's operator has been told why"
	case errors.As(err, &ce), errors.As(err, &ne), errors.Is(err, pq.ErrSSLNotSupported):
		return "the documents database could not be reached; import the file again later"
	case errors.As(err, &pgErr) && pgErr.Code == "53100", errors.As(err, &pqErr) && pqErr.Code == "53100":
		return "the documents database is out of disk space; import the file again later"
	}
	return "the import failed because of an error of the server; import the file again later"
}
