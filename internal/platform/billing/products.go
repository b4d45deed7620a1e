package billing

import (
	"context"
	"errors"

	"github.com/oapi-codegen/nullable"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// ListProducts pages through the platform's products, sorted by name (case-insensitively, as names
// are compared).
func (s *Service) ListProducts(ctx context.Context, req platformapi.ListProductsRequestObject) (platformapi.ListProductsResponseObject, error) {
	page := httpx.NewPaging(req.Params.Page, req.Params.Limit)
	cond, args := "", []any{}
	if req.Params.Provider != nil {
		cond, args = ` WHERE provider = $1`, append(args, *req.Params.Provider)
	}
	out := platformapi.ListProducts200JSONResponse{Page: page.Page, Limit: page.Limit, Products: []platformapi.ProductResponse{}}
	if err := s.db.GetContext(ctx, &out.Total, `SELECT count(*) FROM products`+cond, args...); err != nil {
		return nil, err
	}
	var rows []productRow
	args = append(args, page.Limit, page.Offset())
	q := `SELECT ` + productColumns + ` FROM products` + cond + ` ORDER BY name, id LIMIT ` +
		dbx.Placeholder(len(args)-1) + ` OFFSET ` + dbx.Placeholder(len(args))
	if err := s.db.SelectContext(ctx, &rows, q, args...); err != nil {
		return nil, err
	}
	for _, r := range rows {
		item, err := r.response()
		if err != nil {
			return nil, err
		}
		out.Products = append(out.Products, item)
	}
	return out, nil
}

// GetProduct returns one product.
func (s *Service) GetProduct(ctx context.Context, req platformapi.GetProductRequestObject) (platformapi.GetProductResponseObject, error) {
	r, err := getProduct(ctx, s.db, req.Id)
	if err != nil {
		return nil, err
	}
	out, err := r.response()
	return platformapi.GetProduct200JSONResponse(out), err
}

// AddProduct creates a product (backoffice only). The name's uniqueness is the citext column's, so
// a concurrent twin is refused by the index rather than by a read that could race.
func (s *Service) AddProduct(ctx context.Context, req platformapi.AddProductRequestObject) (platformapi.AddProductResponseObject, error) {
	p := auth.MustFromContext(ctx)
	b := req.Body
	name, err := cleanText("name", b.Name)
	if err != nil {
		return nil, err
	}
	unit, err := cleanText("unit", b.Unit)
	if err != nil {
		return nil, err
	}
	provider, err := cleanText("provider", b.Provider)
	if err != nil {
		return nil, err
	}
	meta, err := encodeObject(b.Metadata)
	if err != nil {
		return nil, err
	}
	var r productRow
	err = s.db.GetContext(ctx, &r, `INSERT INTO products (name, unit, provider, description, estimated_cost_per_unit,
			metadata, modified_by)
		VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7) RETURNING `+productColumns,
		name, unit, provider, b.Description, b.EstimatedCostPerUnit, meta, p.Actor())
	if err != nil {
		return nil, productWriteError(err)
	}
	out, err := r.response()
	return platformapi.AddProduct201JSONResponse(out), err
}

// EditProduct changes the fields the request names (backoffice only); null clears a nullable field.
// Recorded usage keeps its estimated cost, because the cost was computed when it was recorded.
func (s *Service) EditProduct(ctx context.Context, req platformapi.EditProductRequestObject) (platformapi.EditProductResponseObject, error) {
	p := auth.MustFromContext(ctx)
	b := req.Body
	name, err := optionalText("name", b.Name)
	if err != nil {
		return nil, err
	}
	unit, err := optionalText("unit", b.Unit)
	if err != nil {
		return nil, err
	}
	provider, err := optionalText("provider", b.Provider)
	if err != nil {
		return nil, err
	}
	var meta any
	if b.Metadata.IsSpecified() && !b.Metadata.IsNull() {
		m := b.Metadata.MustGet()
		if meta, err = encodeObject(&m); err != nil {
			return nil, err
		}
	}
	if name == nil && unit == nil && provider == nil && !b.Description.IsSpecified() &&
		!b.EstimatedCostPerUnit.IsSpecified() && !b.Metadata.IsSpecified() {
		// Nothing to change: the product is returned as it is, its modified_at untouched.
		r, err := getProduct(ctx, s.db, req.Id)
		if err != nil {
			return nil, err
		}
		out, err := r.response()
		return platformapi.EditProduct200JSONResponse(out), err
	}
	var r productRow
	err = s.db.GetContext(ctx, &r, `
		UPDATE products SET
			name                    = coalesce($2, name),
			unit                    = coalesce($3, unit),
			provider                = coalesce($4, provider),
			description             = CASE WHEN $5 THEN $6 ELSE description END,
			estimated_cost_per_unit = CASE WHEN $7 THEN $8::numeric ELSE estimated_cost_per_unit END,
			metadata                = CASE WHEN $9 THEN $10::jsonb ELSE metadata END,
			modified_at             = now(),
			modified_by             = $11
		WHERE id = $1 RETURNING `+productColumns,
		req.Id, name, unit, provider,
		b.Description.IsSpecified(), valueOrNil(b.Description),
		b.EstimatedCostPerUnit.IsSpecified(), valueOrNil(b.EstimatedCostPerUnit),
		b.Metadata.IsSpecified(), meta, p.Actor())
	if err != nil {
		return nil, productWriteError(err)
	}
	out, err := r.response()
	return platformapi.EditProduct200JSONResponse(out), err
}

// valueOrNil is a nullable field's value as a query parameter: SQL NULL when null or omitted.
func valueOrNil[T any](n nullable.Nullable[T]) *T {
	if v, err := n.Get(); err == nil {
		return &v
	}
	return nil
}

// DeleteProduct deletes a product no usage refers to (backoffice only). The usage_records foreign key
// decides, so usage recorded concurrently cannot be left pointing at nothing; the built-in product of
// /v1 job submissions is never deleted.
func (s *Service) DeleteProduct(ctx context.Context, req platformapi.DeleteProductRequestObject) (platformapi.DeleteProductResponseObject, error) {
	if isBuiltIn(req.Id) {
		return nil, errProductInUse()
	}
	res, err := s.db.ExecContext(ctx, `DELETE FROM products WHERE id = $1`, req.Id)
	if err = dbx.Translate(err); errors.Is(err, dbx.ErrReferenced) {
		return nil, errProductInUse()
	} else if err != nil {
		return nil, err
	}
	if n, err := res.RowsAffected(); err != nil {
		return nil, err
	} else if n == 0 {
		return nil, errNoProduct()
	}
	return platformapi.DeleteProduct204Response{}, nil
}
