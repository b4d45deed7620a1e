package main

import (
	"context"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/secret"
)

// sealedColumn is a column of values sealed under the encryption key, with the additional data each was
// sealed with, computed in SQL from the row exactly as the code that seals it computes it in Go.
type sealedColumn struct {
	table, key, keyType, column, aad string
}

// sealed lists every column sealed with the encryption key: a new one is added here with its table.
var sealed = []sealedColumn{
	// auth.KeyStore seals a signing key's private key with its kid.
	{table: "auth_signing_keys", key: "kid", keyType: "text", column: "private_key", aad: "convert_to(kid, 'UTF8')"},
	// credentials seal the secret with the organization's id then the credential's (16 bytes each).
	{table: "credentials", key: "id", keyType: "uuid", column: "sealed_secret",
		aad: "decode(replace(organization_id::text, '-', ''), 'hex') || decode(replace(id::text, '-', ''), 'hex')"},
	// documents seal the login password of an organization's role with the organization's id (document_schemas
	// holds those of earlier versions until they are moved).
	{table: "document_schemas", key: "organization_id", keyType: "uuid", column: "sealed_password",
		aad: "decode(replace(organization_id::text, '-', ''), 'hex')"},
	{table: "document_databases", key: "organization_id", keyType: "uuid", column: "sealed_password",
		aad: "decode(replace(organization_id::text, '-', ''), 'hex')"},
}

// adminRekey re-seals every sealed value under a new encryption key, in one transaction: either every
// value opens under the new key afterwards, or nothing changed. The values are opened with the
// configured LOOPWORK_ENCRYPTION_KEY (the old one). Servers still running with the old key cannot open
// what was re-sealed: stop them first, or restart them with the new key right after.
func adminRekey(ctx context.Context, cfg config.Config, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("rekey", flag.ContinueOnError)
	fs.SetOutput(out)
	newKey := fs.String("new-key", "", "the new key, 32 bytes in base64 (openssl rand -base64 32) (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	raw, err := base64.StdEncoding.DecodeString(*newKey)
	if err != nil || len(raw) != 32 {
		return errors.New("--new-key: 32 bytes in base64 are required (openssl rand -base64 32)")
	}
	if cfg.EncryptionKey == "" {
		return errors.New("LOOPWORK_ENCRYPTION_KEY: not set; it must be the key the values are sealed with now")
	}
	oldBox, err := secret.NewBox(cfg.EncryptionKeyBytes())
	if err != nil {
		return fmt.Errorf("LOOPWORK_ENCRYPTION_KEY: %w", err)
	}
	newBox, err := secret.NewBox(raw)
	if err != nil {
		return err
	}
	db, err := dbx.Open(ctx, cfg.DatabaseURL, dbx.PoolOptions{MaxOpenConns: 2, MaxIdleConns: 1})
	if err != nil {
		return err
	}
	defer db.Close()
	counts := make([]int, len(sealed))
	err = dbx.WithTx(ctx, db, func(tx *sqlx.Tx) error {
		for i, c := range sealed {
			n, err := reseal(ctx, tx, c, oldBox, newBox)
			if err != nil {
				return err
			}
			counts[i] = n
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i, c := range sealed {
		fmt.Fprintf(out, "re-sealed %d values of %s.%s\n", counts[i], c.table, c.column)
	}
	fmt.Fprintln(out, "set LOOPWORK_ENCRYPTION_KEY to the new key and restart every server")
	return nil
}

// reseal opens each value of one column with the old box and seals it with the new one, rows locked.
func reseal(ctx context.Context, tx *sqlx.Tx, c sealedColumn, oldBox, newBox *secret.Box) (int, error) {
	var rows []struct {
		Key    string `db:"k"`
		AAD    []byte `db:"aad"`
		Sealed []byte `db:"sealed"`
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT `+c.key+`::text AS k, `+c.aad+` AS aad, `+c.column+` AS sealed
		FROM `+c.table+` FOR UPDATE`); err != nil {
		return 0, err
	}
	for _, r := range rows {
		plain, err := oldBox.Open(r.Sealed, r.AAD)
		if err != nil {
			return 0, fmt.Errorf("%s %s does not open with LOOPWORK_ENCRYPTION_KEY (is it the key in use?); nothing was changed", c.table, r.Key)
		}
		again, err := newBox.Seal(plain, r.AAD)
		if err != nil {
			return 0, err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE `+c.table+` SET `+c.column+` = $2 WHERE `+c.key+` = $1::`+c.keyType, r.Key, again); err != nil {
			return 0, err
		}
	}
	return len(rows), nil
}
