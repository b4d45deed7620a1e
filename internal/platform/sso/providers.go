package sso

import (
	"context"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
)

// CreateSsoProvider registers a SAML identity provider for the caller's organization. The metadata is
// fetched and checked before the transaction starts, so no transaction waits on another server.
func (s *Service) CreateSsoProvider(ctx context.Context, req platformapi.CreateSsoProviderRequestObject) (platformapi.CreateSsoProviderResponseObject, error) {
	p := auth.MustFromContext(ctx)
	b := req.Body
	if err := oneSource(b.MetadataUrl, b.MetadataXml, true); err != nil {
		return nil, err
	}
	domains, err := normalizeDomains(b.Domains)
	if err != nil {
		return nil, err
	}
	mapping, err := checkMapping(b.AttributeMapping)
	if err != nil {
		return nil, err
	}
	md, err := s.loadMetadata(ctx, b.MetadataUrl, b.MetadataXml)
	if err != nil {
		return nil, err
	}
	mappingJSON, err := jsonb(mapping)
	if err != nil {
		return nil, err
	}
	id := newProviderID()
	var row providerRow
	err = dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `
			INSERT INTO sso_providers (id, organization_id, type, metadata_url, metadata_xml, metadata_xml_hash,
			                           entity_id, attribute_mapping, modified_by)
			VALUES ($1, $2, 'saml', $3, $4, $5, $6, $7::jsonb, $8)`,
			id, p.OrganizationID, md.url, md.xml, md.hash, md.entityID, mappingJSON, p.Actor())
		if err != nil {
			return err
		}
		if err := setDomains(ctx, tx, p.OrganizationID, id, domains); err != nil {
			return err
		}
		row, err = getProvider(ctx, tx, p.OrganizationID, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	out, err := row.response()
	return platformapi.CreateSsoProvider201JSONResponse(out), err
}

// ListSsoProviders lists the organization's providers, oldest first.
func (s *Service) ListSsoProviders(ctx context.Context, _ platformapi.ListSsoProvidersRequestObject) (platformapi.ListSsoProvidersResponseObject, error) {
	p := auth.MustFromContext(ctx)
	rows, err := listProviders(ctx, s.d.DB, p.OrganizationID)
	if err != nil {
		return nil, err
	}
	out := platformapi.ListSsoProviders200JSONResponse{SsoProviders: make([]platformapi.SSOOrganizationResponse, 0, len(rows)), Total: len(rows)}
	for _, r := range rows {
		item, err := r.response()
		if err != nil {
			return nil, err
		}
		out.SsoProviders = append(out.SsoProviders, item)
	}
	return out, nil
}

// GetSsoProvider returns one provider of the organization.
func (s *Service) GetSsoProvider(ctx context.Context, req platformapi.GetSsoProviderRequestObject) (platformapi.GetSsoProviderResponseObject, error) {
	p := auth.MustFromContext(ctx)
	row, err := getProvider(ctx, s.d.DB, p.OrganizationID, req.Id)
	if err != nil {
		return nil, err
	}
	out, err := row.response()
	return platformapi.GetSsoProvider200JSONResponse(out), err
}

// UpdateSsoProvider changes the given fields. The provider is looked up before any metadata is fetched,
// so another organization's id never makes the server call out.
func (s *Service) UpdateSsoProvider(ctx context.Context, req platformapi.UpdateSsoProviderRequestObject) (platformapi.UpdateSsoProviderResponseObject, error) {
	p := auth.MustFromContext(ctx)
	b := req.Body
	if err := oneSource(b.MetadataUrl, b.MetadataXml, false); err != nil {
		return nil, err
	}
	var domains []string
	if b.Domains != nil {
		var err error
		if domains, err = normalizeDomains(*b.Domains); err != nil {
			return nil, err
		}
	}
	// An omitted mapping keeps the stored one; null (or an empty object) removes it.
	setMapping := b.AttributeMapping.IsSpecified()
	var mapping *map[string]any
	if setMapping && !b.AttributeMapping.IsNull() {
		given := b.AttributeMapping.MustGet()
		var err error
		if mapping, err = checkMapping(&given); err != nil {
			return nil, err
		}
	}
	mappingJSON, err := jsonb(mapping)
	if err != nil {
		return nil, err
	}
	current, err := getProvider(ctx, s.d.DB, p.OrganizationID, req.Id)
	if err != nil {
		return nil, err
	}
	var md *metadata
	if b.MetadataUrl != nil || b.MetadataXml != nil {
		if md, err = s.loadMetadata(ctx, b.MetadataUrl, b.MetadataXml); err != nil {
			return nil, err
		}
	}
	if b.IsActive == nil && b.Domains == nil && !setMapping && md == nil {
		// Nothing to change: the provider is returned as it is, its updated_at untouched.
		out, err := current.response()
		return platformapi.UpdateSsoProvider200JSONResponse(out), err
	}
	var row providerRow
	err = dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		if err := lockProvider(ctx, tx, p.OrganizationID, req.Id); err != nil {
			return err
		}
		if err := updateProvider(ctx, tx, p, req.Id, b.IsActive, md, setMapping, mappingJSON); err != nil {
			return err
		}
		if b.Domains != nil {
			if err := setDomains(ctx, tx, p.OrganizationID, req.Id, domains); err != nil {
				return err
			}
		}
		var err error
		row, err = getProvider(ctx, tx, p.OrganizationID, req.Id)
		return err
	})
	if err != nil {
		return nil, err
	}
	out, err := row.response()
	return platformapi.UpdateSsoProvider200JSONResponse(out), err
}

// updateProvider writes the provider's own columns; a nil md keeps the metadata, setMapping false
// keeps the mapping. It always records who changed the provider, domains-only changes included.
func updateProvider(ctx context.Context, tx *sqlx.Tx, p *auth.Principal, id string, isActive *bool, md *metadata, setMapping bool, mapping any) error {
	var mdURL, mdXML, mdHash, entityID *string
	if md != nil {
		mdURL, mdXML, mdHash, entityID = md.url, &md.xml, &md.hash, &md.entityID
	}
	_, err := tx.ExecContext(ctx, `
		UPDATE sso_providers SET
			is_active         = coalesce($3, is_active),
			metadata_url      = CASE WHEN $4 THEN $5 ELSE metadata_url END,
			metadata_xml      = CASE WHEN $4 THEN $6 ELSE metadata_xml END,
			metadata_xml_hash = CASE WHEN $4 THEN $7 ELSE metadata_xml_hash END,
			entity_id         = CASE WHEN $4 THEN $8 ELSE entity_id END,
			attribute_mapping = CASE WHEN $9 THEN $10::jsonb ELSE attribute_mapping END,
			modified_by       = $11
		WHERE organization_id = $1 AND id = $2`,
		p.OrganizationID, id, isActive, md != nil, mdURL, mdXML, mdHash, entityID, setMapping, mapping, p.Actor())
	return err
}

// DeleteSsoProvider deletes a provider; its domains go with it. Users it created keep their accounts.
func (s *Service) DeleteSsoProvider(ctx context.Context, req platformapi.DeleteSsoProviderRequestObject) (platformapi.DeleteSsoProviderResponseObject, error) {
	p := auth.MustFromContext(ctx)
	res, err := s.d.DB.ExecContext(ctx, `DELETE FROM sso_providers WHERE organization_id = $1 AND id = $2`, p.OrganizationID, req.Id)
	if err != nil {
		return nil, err
	}
	if n, err := res.RowsAffected(); err != nil {
		return nil, err
	} else if n == 0 {
		return nil, errNoProvider()
	}
	return platformapi.DeleteSsoProvider204Response{}, nil
}
