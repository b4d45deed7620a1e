package billing

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// defaultGrantReason is the contract's default for a grant sent without a reason.
const defaultGrantReason = "Manual grant by admin"

// grantRow is one credit_grants row.
type grantRow struct {
	ID             uuid.UUID `db:"id"`
	OrganizationID uuid.UUID `db:"organization_id"`
	Amount         int64     `db:"amount"`
	Reason         string    `db:"reason"`
	GrantedBy      string    `db:"granted_by"`
	CreatedAt      time.Time `db:"created_at"`
	UpdatedAt      time.Time `db:"updated_at"`
	ModifiedBy     string    `db:"modified_by"`
}

const grantColumns = `id, organization_id, amount, reason, granted_by, created_at, updated_at, modified_by`

func (r grantRow) response() platformapi.CreditGrantResponse {
	return platformapi.CreditGrantResponse{Id: r.ID, OrganizationId: r.OrganizationID, Amount: r.Amount,
		Reason: r.Reason, GrantedBy: r.GrantedBy, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, ModifiedBy: r.ModifiedBy}
}

// GrantCredits adds credits to an organization (backoffice only, by the permission table). The ledger
// row and the running balance are written in one transaction, so the balance never disagrees with
// the grants.
func (s *Service) GrantCredits(ctx context.Context, req platformapi.GrantCreditsRequestObject) (platformapi.GrantCreditsResponseObject, error) {
	p := auth.MustFromContext(ctx)
	reason := defaultGrantReason
	if req.Body.Reason != nil {
		reason = *req.Body.Reason
	}
	var row grantRow
	err := dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		if err := organizationExists(ctx, tx, req.Id); err != nil {
			return err
		}
		err := tx.GetContext(ctx, &row, `INSERT INTO credit_grants (organization_id, amount, reason, granted_by, modified_by)
			VALUES ($1, $2, $3, $4, $4) RETURNING `+grantColumns, req.Id, req.Body.Amount, reason, p.Actor())
		if err != nil {
			return dbx.Translate(err)
		}
		return credits.Grant(ctx, tx, req.Id, req.Body.Amount)
	})
	if err != nil {
		return nil, err
	}
	return platformapi.GrantCredits201JSONResponse(row.response()), nil
}

// ListCreditGrants pages through an organization's grants, newest first: any organization for
// backoffice, only its own for an org_admin.
func (s *Service) ListCreditGrants(ctx context.Context, req platformapi.ListCreditGrantsRequestObject) (platformapi.ListCreditGrantsResponseObject, error) {
	p := auth.MustFromContext(ctx)
	org, err := reportedOrganization(ctx, s.db, p, &req.Id)
	if err != nil {
		return nil, err
	}
	page := httpx.NewPaging(req.Params.Page, req.Params.Limit)
	out := platformapi.ListCreditGrants200JSONResponse{Page: page.Page, Limit: page.Limit,
		CreditGrants: []platformapi.CreditGrantResponse{}}
	if err := s.db.GetContext(ctx, &out.Total, `SELECT count(*) FROM credit_grants WHERE organization_id = $1`, org); err != nil {
		return nil, err
	}
	var rows []grantRow
	if err := s.db.SelectContext(ctx, &rows, `SELECT `+grantColumns+` FROM credit_grants WHERE organization_id = $1
		ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`, org, page.Limit, page.Offset()); err != nil {
		return nil, err
	}
	for _, r := range rows {
		out.CreditGrants = append(out.CreditGrants, r.response())
	}
	return out, nil
}

// GetCreditBalance reports an organization's running balance, as kept by the credits package for
// every grant and every usage record, those of /v1 job submissions included.
func (s *Service) GetCreditBalance(ctx context.Context, req platformapi.GetCreditBalanceRequestObject) (platformapi.GetCreditBalanceResponseObject, error) {
	p := auth.MustFromContext(ctx)
	org, err := reportedOrganization(ctx, s.db, p, req.Params.OrganizationId)
	if err != nil {
		return nil, err
	}
	b, err := credits.Get(ctx, s.db, org)
	if err != nil {
		return nil, err
	}
	return platformapi.GetCreditBalance200JSONResponse{OrganizationId: org, CreditsGranted: b.Granted,
		CreditsConsumed: &b.Consumed, CreditsRemaining: b.Remaining()}, nil
}
