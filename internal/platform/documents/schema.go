package documents

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/lib/pq"
)

// scramVerifier is what PostgreSQL stores for a SCRAM-SHA-256 password (RFC 5802, 4096 iterations).
func scramVerifier(password string) string {
	salt := make([]byte, 16)
	rand.Read(salt)
	salted, _ := pbkdf2.Key(sha256.New, password, salt, 4096, 32)
	mac := func(key []byte, msg string) []byte {
		h := hmac.New(sha256.New, key)
		h.Write([]byte(msg))
		return h.Sum(nil)
	}
	stored := sha256.Sum256(mac(salted, "Client Key"))
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$4096:%s$%s:%s", b64(salt), b64(stored[:]), b64(mac(salted, "Server Key")))
}

// splitTable splits "schema.table" or "table" for quoting.
func splitTable(name string) (schema, table string, err error) {
	schema, table, found := strings.Cut(name, ".")
	if !found {
		schema, table = "", name
	}
	if table == "" || (found && schema == "") || strings.ContainsRune(name, 0) {
		return "", "", errors.New("a table name is table or schema.table")
	}
	return schema, table, nil
}

// qualified quotes an outside table name for SQL.
func qualified(name string) string {
	schema, table, _ := splitTable(name)
	if schema == "" {
		return pq.QuoteIdentifier(table)
	}
	return pq.QuoteIdentifier(schema) + "." + pq.QuoteIdentifier(table)
}
