package config

import (
	"errors"
	"fmt"
	"net/url"
	"time"
)

// validateDocuments checks the settings that confine the SQL tenants run over their documents.
func (c Config) validateDocuments() []error {
	var errs []error
	if c.DocumentsDatabaseURL != "" {
		if u, err := url.Parse(c.DocumentsDatabaseURL); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			errs = append(errs, errors.New("LOOPWORK_DOCUMENTS_DATABASE_URL: must be a postgres:// or postgresql:// URL"))
		}
	}
	if c.DocumentsConnectionLimit < 1 {
		errs = append(errs, fmt.Errorf("LOOPWORK_DOCUMENTS_CONNECTION_LIMIT=%d: must be at least 1", c.DocumentsConnectionLimit))
	}
	if c.DocumentsQuotaMB < 1 {
		errs = append(errs, fmt.Errorf("LOOPWORK_DOCUMENTS_QUOTA_MB=%d: must be at least 1", c.DocumentsQuotaMB))
	}
	if c.SQLStatementTimeout < 100*time.Millisecond {
		errs = append(errs, fmt.Errorf("LOOPWORK_SQL_STATEMENT_TIMEOUT=%s: must be at least 100ms", c.SQLStatementTimeout))
	}
	if c.SQLMaxRows < 1 || c.SQLMaxRows > 100000 {
		errs = append(errs, fmt.Errorf("LOOPWORK_SQL_MAX_ROWS=%d: must be between 1 and 100000", c.SQLMaxRows))
	}
	return errs
}

// DocumentsURL is the cluster documents live on: LOOPWORK_DOCUMENTS_DATABASE_URL, or DATABASE_URL.
func (c Config) DocumentsURL() string {
	if c.DocumentsDatabaseURL != "" {
		return c.DocumentsDatabaseURL
	}
	return c.DatabaseURL
}
