package billing

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// productRow is one products row.
type productRow struct {
	ID                   uuid.UUID `db:"id"`
	Name                 string    `db:"name"`
	Unit                 string    `db:"unit"`
	Provider             string    `db:"provider"`
	Description          *string   `db:"description"`
	EstimatedCostPerUnit *float64  `db:"estimated_cost_per_unit"`
	Metadata             []byte    `db:"metadata"`
	CreatedAt            time.Time `db:"created_at"`
	ModifiedAt           time.Time `db:"modified_at"`
}

const productColumns = `id, name, unit, provider, description, estimated_cost_per_unit::float8 AS estimated_cost_per_unit,
	metadata, created_at, modified_at`

func (r productRow) response() (platformapi.ProductResponse, error) {
	meta, err := decodeObject(r.Metadata)
	return platformapi.ProductResponse{Id: r.ID, Name: r.Name, Unit: r.Unit, Provider: r.Provider,
		Description: r.Description, EstimatedCostPerUnit: r.EstimatedCostPerUnit, Metadata: meta,
		CreatedAt: r.CreatedAt, ModifiedAt: r.ModifiedAt}, err
}

func getProduct(ctx context.Context, db dbx.DBTX, id uuid.UUID) (productRow, error) {
	var r productRow
	err := db.GetContext(ctx, &r, `SELECT `+productColumns+` FROM products WHERE id = $1`, id)
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
		return r, errNoProduct()
	}
	return r, err
}

func errNoProduct() *httpx.Error { return httpx.NotFound("product") }

// errProductInUse refuses deleting a product that usage records refer to. The built-in job-submission
// product counts as always in use: every /v1 job is recorded against it, so it must never go away.
func errProductInUse() error {
	return httpx.NewError(409, "product_in_use", "usage has been recorded against this product, so it cannot be deleted")
}

// productWriteError turns a failed insert or update into the public answer: a taken name is 409
// conflict, anything else a check constraint refused is passed on translated.
func productWriteError(err error) error {
	err = dbx.Translate(err)
	var ce *dbx.ConstraintError
	if errors.As(err, &ce) && errors.Is(err, dbx.ErrConflict) && ce.Constraint == "products_name_key" {
		return httpx.Conflict("a product with this name already exists")
	}
	if errors.Is(err, dbx.ErrNotFound) {
		return errNoProduct()
	}
	return err
}

// isBuiltIn reports the product the /v1 job path depends on.
func isBuiltIn(id uuid.UUID) bool { return id == credits.JobSubmissionProduct }

// cleanText trims surrounding white space from a name, unit or provider: it would make two names
// that read the same differ. The contract's minLength passes a value of spaces only, so blank is
// refused here.
func cleanText(field, v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", httpx.Invalid([]any{"body", field}, "string_too_short", "must not be blank")
	}
	return v, nil
}

// optionalText is cleanText for a field a partial update may omit; nil keeps the stored value.
func optionalText(field string, v *string) (*string, error) {
	if v == nil {
		return nil, nil
	}
	c, err := cleanText(field, *v)
	return &c, err
}

// encodeObject turns an optional JSON object into a jsonb parameter; nil stays SQL NULL.
func encodeObject(m *map[string]any) (any, error) {
	if m == nil {
		return nil, nil
	}
	b, err := json.Marshal(*m)
	return string(b), err
}

// decodeObject reads a jsonb object column; NULL is nil.
func decodeObject(b []byte) (*map[string]any, error) {
	if b == nil {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return &m, nil
}
