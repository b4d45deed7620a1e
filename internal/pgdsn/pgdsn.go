// Package pgdsn turns what a tenant says about a PostgreSQL database (a postgres:// URL or the fields of
// a sql_database credential) into a connector that reads nothing but what was said. Connection strings
// are parsed and rebuilt from an allow-list of parameters: a parameter that makes the driver read a file
// (passfile, service, sslkey, sslcert, sslrootcert), a host that is a socket path, several hosts or any
// other option is refused with the parameter's name. The connector is built from an explicit driver
// configuration instead of a connection string, so that the server's own environment (PGPASSFILE,
// PGSERVICE, PGSSLKEY, any PG* variable) and files (~/.pgpass, ~/.pg_service.conf, ~/.postgresql/*) are
// never consulted: an empty password is sent as empty, not looked up in the server's password file.
package pgdsn

import (
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// Params are the allowed parameters of a tenant's connection.
type Params struct {
	Host     string
	Port     uint16
	DBName   string
	User     string
	Password string
	// SSLMode is one of SSLModes; empty means prefer (libpq's default).
	SSLMode string
	// ConnectTimeout is in seconds; 0 means DefaultConnectTimeout.
	ConnectTimeout  int
	ApplicationName string
}

// Allowed are the parameters a connection string may carry, as they are named in it.
var Allowed = []string{"host", "port", "dbname", "user", "password", "sslmode", "connect_timeout", "application_name"}

// SSLModes are the accepted sslmode values. The verify modes check the server's certificate against the
// system's certificate authorities: a file of the server's cannot be named.
var SSLModes = []string{"disable", "allow", "prefer", "require", "verify-ca", "verify-full"}

const (
	// DefaultConnectTimeout bounds connecting when the tenant says nothing.
	DefaultConnectTimeout = 10
	// MaxConnectTimeout is the most connect_timeout may say.
	MaxConnectTimeout = 60
)

// Error is a refused parameter. Its message names the parameter and never quotes the value, which may
// be a password.
type Error struct {
	Param string
	Msg   string
}

func (e *Error) Error() string { return e.Msg }

func refuse(param, format string, args ...any) *Error {
	return &Error{Param: param, Msg: fmt.Sprintf(format, args...)}
}

// ParseURL parses a postgres:// (or postgresql://) URL. Parameters in its query override the parts of
// the URL, as they do in libpq, and are checked the same way.
func ParseURL(cs string) (Params, error) {
	u, err := url.Parse(cs)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Opaque != "" {
		return Params{}, refuse("connection_string", "not a postgres:// URL")
	}
	raw := map[string]string{}
	if u.User != nil {
		raw["user"] = u.User.Username()
		if pw, ok := u.User.Password(); ok {
			raw["password"] = pw
		}
	}
	if h := u.Hostname(); h != "" || u.Host != "" {
		raw["host"] = h
		if strings.Contains(u.Host, ",") {
			return Params{}, refuse("host", "several hosts are not supported; name one host")
		}
	}
	if p := u.Port(); p != "" {
		raw["port"] = p
	}
	if db := strings.TrimPrefix(u.Path, "/"); db != "" {
		raw["dbname"] = db
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return Params{}, refuse("connection_string", "the query of the connection string does not parse")
	}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the first refused parameter is named the same way every time
	for _, k := range keys {
		if !allowed(k) {
			return Params{}, refuse(k, "connection string parameter %q is not allowed; allowed are %s", k,
				strings.Join(Allowed, ", "))
		}
		if len(q[k]) > 1 {
			return Params{}, refuse(k, "connection string parameter %q is given more than once", k)
		}
		raw[k] = q[k][0]
	}
	return fromRaw(raw)
}

func allowed(k string) bool {
	for _, a := range Allowed {
		if a == k {
			return true
		}
	}
	return false
}

// Fields builds the parameters of a sql_database credential's fields (host, port, database, username,
// password, sslmode), checked like a connection string's.
func Fields(host string, port int, database, username, password, sslmode string) (Params, error) {
	raw := map[string]string{"host": host, "dbname": database, "user": username, "password": password}
	if port != 0 {
		raw["port"] = strconv.Itoa(port)
	}
	if sslmode != "" {
		raw["sslmode"] = sslmode
	}
	return fromRaw(raw)
}

func fromRaw(raw map[string]string) (Params, error) {
	p := Params{Host: raw["host"], Port: 5432, DBName: raw["dbname"], User: raw["user"], Password: raw["password"],
		SSLMode: raw["sslmode"], ApplicationName: raw["application_name"]}
	if err := checkHost(p.Host); err != nil {
		return Params{}, err
	}
	if s, ok := raw["port"]; ok {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 65535 {
			return Params{}, refuse("port", "port must be one number from 1 to 65535")
		}
		p.Port = uint16(n)
	}
	if p.User == "" {
		return Params{}, refuse("user", "a user name is required")
	}
	if p.SSLMode != "" && !oneOf(p.SSLMode, SSLModes) {
		return Params{}, refuse("sslmode", "sslmode must be one of %s", strings.Join(SSLModes, ", "))
	}
	if s, ok := raw["connect_timeout"]; ok {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxConnectTimeout {
			return Params{}, refuse("connect_timeout", "connect_timeout must be whole seconds from 1 to %d", MaxConnectTimeout)
		}
		p.ConnectTimeout = n
	}
	if len(p.ApplicationName) > 64 {
		return Params{}, refuse("application_name", "application_name has at most 64 characters")
	}
	for k, v := range map[string]string{"dbname": p.DBName, "user": p.User, "password": p.Password,
		"application_name": p.ApplicationName} {
		if strings.ContainsRune(v, 0) {
			return Params{}, refuse(k, "%s must not contain NUL characters", k)
		}
	}
	return p, nil
}

// checkHost refuses what would not be one host name or address reached over TCP: nothing, a socket
// path (absolute, or in the abstract namespace), several hosts, or characters no host name has.
func checkHost(h string) error {
	switch {
	case h == "":
		return refuse("host", "a host is required")
	case strings.HasPrefix(h, "/") || strings.HasPrefix(h, "@") || strings.Contains(h, `\`):
		return refuse("host", "host must be a host name or an IP address, not a socket path")
	case strings.Contains(h, ","):
		return refuse("host", "several hosts are not supported; name one host")
	case len(h) > 255 || strings.ContainsAny(h, " \t\r\n/?#'\"=\x00"):
		return refuse("host", "host must be a host name or an IP address")
	}
	if strings.Contains(h, ":") && net.ParseIP(h) == nil {
		return refuse("host", "host must be a host name or an IP address")
	}
	return nil
}

func oneOf(s string, list []string) bool {
	for _, x := range list {
		if s == x {
			return true
		}
	}
	return false
}
