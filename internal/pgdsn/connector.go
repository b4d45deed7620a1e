package pgdsn

import (
	"database/sql"
	"time"

	"github.com/lib/pq"
)

// nowhere is a path no file can have (a name under a device that is not a directory): the driver is
// given it as the password file and as the client certificate, key and root certificate files, so that
// where it would otherwise fall back to the server's home directory it finds nothing instead.
const nowhere = "/dev/null/loopwork-none"

// Config is the driver configuration of p, every field set by the server: nothing comes from the
// environment, a service file or a password file.
func (p Params) Config() pq.Config {
	mode := pq.SSLMode(p.SSLMode)
	if mode == "" {
		mode = pq.SSLModePrefer
	}
	root := nowhere
	if mode == pq.SSLModeVerifyCA || mode == pq.SSLModeVerifyFull {
		root = "system"
	}
	timeout := p.ConnectTimeout
	if timeout == 0 {
		timeout = DefaultConnectTimeout
	}
	return pq.Config{
		Host: p.Host, Port: p.Port, Database: p.DBName, User: p.User, Password: p.Password,
		Passfile: nowhere, ApplicationName: p.ApplicationName,
		SSLMode: mode, SSLSNI: true, SSLCert: nowhere, SSLKey: nowhere, SSLRootCert: root,
		ConnectTimeout: time.Duration(timeout) * time.Second,
		// What the driver's own parser would set: it speaks UTF-8, ISO dates and protocol 3.0 only.
		ClientEncoding: "UTF8", Datestyle: "ISO, MDY",
		MinProtocolVersion: pq.ProtocolVersion30, MaxProtocolVersion: pq.ProtocolVersion30,
		Runtime: map[string]string{},
	}
}

// Open returns a handle on the database of p whose every connection is made by dialer. It holds at most
// one connection; close it after use.
func (p Params) Open(dialer pq.Dialer) (*sql.DB, error) {
	conn, err := pq.NewConnectorConfig(p.Config())
	if err != nil {
		return nil, err
	}
	conn.Dialer(dialer)
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(1)
	return db, nil
}
