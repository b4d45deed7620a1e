package credentials

import (
	"errors"

	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/pgdsn"
)

// dataFieldOf is the secret's field of each connection parameter of a sql_database credential.
var dataFieldOf = map[string]string{"host": "host", "port": "port", "dbname": "database", "user": "username",
	"password": "password", "sslmode": "sslmode"}

// checkConnection refuses a sql_database secret whose connection settings pgdsn's allow-list refuses
// (a passfile or service in the connection string, a socket path as host …), located at the field or at
// the connection string and the parameter. Other providers have no connection settings.
func checkConnection(p *provider, data map[string]any) error {
	if p.name != "sql_database" {
		return nil
	}
	str := func(k string) string { v, _ := data[k].(string); return v }
	port := 0
	if n, ok := data["port"].(float64); ok {
		port = int(n)
	}
	var pe *pgdsn.Error
	if _, err := pgdsn.Fields(str("host"), port, str("database"), str("username"), str("password"), str("sslmode")); errors.As(err, &pe) {
		loc := []any{"body", "data"}
		if f, ok := dataFieldOf[pe.Param]; ok {
			loc = append(loc, f)
		}
		return httpx.Invalid(loc, "connection_parameter", pe.Msg)
	}
	cs := str("connection_string")
	if cs == "" {
		return nil
	}
	parsed, err := pgdsn.ParseURL(cs)
	if errors.As(err, &pe) {
		loc := []any{"body", "data", "connection_string"}
		if pe.Param != "connection_string" {
			loc = append(loc, pe.Param)
		}
		return httpx.Invalid(loc, "connection_parameter", pe.Msg)
	}
	if err != nil {
		return err
	}
	if parsed.Host != str("host") || (port != 0 && int(parsed.Port) != port) || (port == 0 && parsed.Port != 5432) {
		return httpx.Invalid([]any{"body", "data", "connection_string"}, "value_error",
			"the connection string must name the same host and port as the host and port fields")
	}
	return nil
}
