package credentials_test

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/testkit"
)

// recorder is a local HTTP server on host that records the Authorization header of every request.
type recorder struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
}

func record(t *testing.T, host string, h http.HandlerFunc) *recorder {
	t.Helper()
	l, err := net.Listen("tcp", host+":0")
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{}
	r.Server = &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, q *http.Request) {
		r.mu.Lock()
		r.seen = append(r.seen, q.Header.Get("Authorization"))
		r.mu.Unlock()
		if h != nil {
			h(w, q)
			return
		}
		_, _ = io.WriteString(w, "ok")
	})}}
	r.Start()
	t.Cleanup(r.Close)
	return r
}

func (r *recorder) headers() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string{}, r.seen...)
}

// TestCredentialAttacks drives a real server as a hostile app_user would: naming an admin's private
// credential in a flow, running a flow whose credential was unshared since it was saved, sending a
// host-bound credential to another host directly or through a redirect, registering connection strings
// that make the driver read files, and leaving the password empty so that the server's own password
// file would be read. The server runs with HOME and PGPASSFILE pointing at a password file.
func TestCredentialAttacks(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	const serverSecret = "server-own-password-4711"
	pgpass := filepath.Join(home, ".pgpass")
	if err := os.WriteFile(pgpass, []byte("*:*:*:*:"+serverSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := serve(t, "HOME="+home, "PGPASSFILE="+pgpass)
	target := record(t, "127.0.0.1", nil)
	const adminKey = "admin-key-0001"
	private := credential(t, s.admin, adminKey, false, nil)

	t.Run("saving a flow with another's private credential is the 422 of a missing one", func(t *testing.T) {
		res, err := s.user.CreateFlowWithResponse(ctx, platformapi.FlowCreateRequest{DisplayName: "steal",
			Definition: httpFlow(target.URL, private)})
		testkit.Expect(t, res, err, http.StatusUnprocessableEntity)
		missing, err := s.user.CreateFlowWithResponse(ctx, platformapi.FlowCreateRequest{DisplayName: "steal",
			Definition: httpFlow(target.URL, uuid.New())})
		testkit.Expect(t, missing, err, http.StatusUnprocessableEntity)
		got, want := validation(t, res.Body), validation(t, missing.Body)
		if !reflect.DeepEqual(got, want) || len(got) != 1 ||
			strings.Join(locs(t, res.Body), "") != "body.definition.tasks.0.parameters.credential_id" {
			t.Fatalf("private: %s\nmissing: %s", res.Body, missing.Body)
		}
		// The same through PUT of a flow the app_user owns, and by the agent's path (a new version).
		own, err := s.user.CreateFlowWithResponse(ctx, platformapi.FlowCreateRequest{DisplayName: "mine",
			Definition: httpFlow(target.URL, credential(t, s.user, "mine", false, nil))})
		testkit.Expect(t, own, err, http.StatusCreated)
		put, err := s.user.UpdateFlowDefinitionWithResponse(ctx, own.JSON201.Id,
			platformapi.FlowDefinitionUpdate{Definition: httpFlow(target.URL, private)})
		testkit.Expect(t, put, err, http.StatusUnprocessableEntity)
		// An admin's flow that names the private credential cannot take a new definition from the app_user
		// either, even invited to it: the version would be theirs, and so would the right its attempts check.
		adminFlow, err := s.admin.CreateFlowWithResponse(ctx, platformapi.FlowCreateRequest{DisplayName: "admin's",
			Definition: httpFlow(target.URL, private)})
		testkit.Expect(t, adminFlow, err, http.StatusCreated)
		if _, err := s.db.Exec(`INSERT INTO flow_invitations (flow_id, user_id, organization_id) VALUES ($1, $2, $3)`,
			adminFlow.JSON201.Id, s.userID, s.org); err != nil {
			t.Fatal(err)
		}
		resave, err := s.user.UpdateFlowDefinitionWithResponse(ctx, adminFlow.JSON201.Id,
			platformapi.FlowDefinitionUpdate{Definition: httpFlow(target.URL+"/again", private)})
		testkit.Expect(t, resave, err, http.StatusUnprocessableEntity)
		// Renaming it saves no definition, so the right its attempts check stays the admin's.
		name := "renamed"
		patch, err := s.user.ModifyFlowWithResponse(ctx, adminFlow.JSON201.Id, platformapi.PatchFlowRequest{DisplayName: &name})
		testkit.Expect(t, patch, err, http.StatusOK)
		var saver string
		if err := s.db.Get(&saver, `SELECT saved_by FROM flow_versions WHERE flow_id = $1 AND version = $2`,
			adminFlow.JSON201.Id, patch.JSON200.Version); err != nil || patch.JSON200.Version != 1 || saver != s.adminID.String() {
			t.Fatalf("after the rename: version %d saved by %q (%v), want 1 saved by the admin", patch.JSON200.Version, saver, err)
		}
		if len(target.headers()) != 0 {
			t.Fatalf("a refused save sent a request: %q", target.headers())
		}
	})

	t.Run("shared, then unshared: the older version's attempt fails without sending it", func(t *testing.T) {
		yes, no := true, false
		up, err := s.admin.UpdateCredentialWithResponse(ctx, private, platformapi.CredentialUpdateRequest{Shared: &yes})
		testkit.Expect(t, up, err, http.StatusOK)
		f, err := s.user.CreateFlowWithResponse(ctx, platformapi.FlowCreateRequest{DisplayName: "shared",
			Definition: httpFlow(target.URL, private)})
		testkit.Expect(t, f, err, http.StatusCreated)
		if status, msg := s.run(t, s.user, f.JSON201.Id); status != "completed" {
			t.Fatalf("with the shared credential: %s %s", status, msg)
		}
		if h := target.headers(); len(h) != 1 || h[0] != "Bearer "+adminKey {
			t.Fatalf("headers seen: %q", h)
		}
		up, err = s.admin.UpdateCredentialWithResponse(ctx, private, platformapi.CredentialUpdateRequest{Shared: &no})
		testkit.Expect(t, up, err, http.StatusOK)
		status, msg := s.run(t, s.user, f.JSON201.Id)
		if status != "failed" || !strings.Contains(msg, "credential_id: no such credential") {
			t.Fatalf("after unsharing: %s %s", status, msg)
		}
		if h := target.headers(); len(h) != 1 {
			t.Fatalf("the unshared credential was sent: %q", h)
		}
	})

	t.Run("a host-bound credential never reaches another host, not even through a redirect", func(t *testing.T) {
		other := record(t, "127.0.0.2", nil)
		bouncer := record(t, "127.0.0.1", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/landed", http.StatusFound)
		})
		bound := credential(t, s.admin, "bound-key", false, []string{"127.0.0.1"})
		direct, err := s.admin.CreateFlowWithResponse(ctx, platformapi.FlowCreateRequest{DisplayName: "direct",
			Definition: httpFlow(other.URL, bound)})
		testkit.Expect(t, direct, err, http.StatusCreated)
		if status, msg := s.run(t, s.admin, direct.JSON201.Id); status != "failed" || !strings.Contains(msg, "allowed_domains") {
			t.Fatalf("to another host: %s %s", status, msg)
		}
		redirect, err := s.admin.CreateFlowWithResponse(ctx, platformapi.FlowCreateRequest{DisplayName: "redirect",
			Definition: httpFlow(bouncer.URL, bound)})
		testkit.Expect(t, redirect, err, http.StatusCreated)
		if status, msg := s.run(t, s.admin, redirect.JSON201.Id); status != "completed" {
			t.Fatalf("through a redirect: %s %s", status, msg)
		}
		if h := bouncer.headers(); len(h) != 1 || h[0] != "Bearer bound-key" {
			t.Fatalf("the allowed host saw %q", h)
		}
		if h := other.headers(); len(h) != 1 || h[0] != "" {
			t.Fatalf("the other host saw %q", h)
		}
	})

	t.Run("connection strings that read files are refused naming the parameter", func(t *testing.T) {
		for param, cs := range map[string]string{
			"passfile":    "postgres://u@db.example.com:5432/d?passfile=/etc/loopwork/pgpass",
			"service":     "postgres://u@db.example.com:5432/d?service=prod",
			"sslkey":      "postgres://u@db.example.com:5432/d?sslkey=/root/.postgresql/postgresql.key",
			"sslrootcert": "postgres://u@db.example.com:5432/d?sslrootcert=/etc/ssl/private/ca.pem",
			"host":        "postgres://u@db.example.com:5432/d?host=/tmp",
		} {
			res, err := s.user.CreateSqlDatabaseWithResponse(ctx, platformapi.SqlDatabaseCreateRequest{Host: "db.example.com",
				Port: "5432", Username: "u", Password: new("p"), Database: "d", ConnectionString: &cs})
			testkit.Expect(t, res, err, http.StatusUnprocessableEntity)
			if l := strings.Join(locs(t, res.Body), " "); l != "body.connection_string."+param {
				t.Fatalf("%s: %s", param, res.Body)
			}
			c, err := s.user.CreateCredentialWithResponse(ctx, platformapi.CredentialCreateRequest{Name: uuid.NewString(),
				Provider: "sql_database", CredentialType: "user_password", Data: &map[string]any{"host": "db.example.com",
					"database": "d", "username": "u", "password": "p", "connection_string": cs}})
			testkit.Expect(t, c, err, http.StatusUnprocessableEntity)
			if l := strings.Join(locs(t, c.Body), " "); l != "body.data.connection_string."+param {
				t.Fatalf("credential %s: %s", param, c.Body)
			}
		}
		res, err := s.user.CreateSqlDatabaseWithResponse(ctx, platformapi.SqlDatabaseCreateRequest{Host: "/tmp",
			Port: "5432", Username: "u", Password: new("p"), Database: "d"})
		testkit.Expect(t, res, err, http.StatusUnprocessableEntity)
		if l := strings.Join(locs(t, res.Body), " "); l != "body.host" {
			t.Fatalf("socket host: %s", res.Body)
		}
	})

	t.Run("an empty password is sent empty, never the server's password file", func(t *testing.T) {
		fake := fakePostgres(t)
		host, port, _ := net.SplitHostPort(fake.addr)
		for i, cs := range []*string{nil, new("postgres://u@" + fake.addr + "/d?sslmode=disable")} {
			reg, err := s.user.CreateSqlDatabaseWithResponse(ctx, platformapi.SqlDatabaseCreateRequest{Host: host, Port: port,
				Username: "u", Password: new(""), Database: fmt.Sprint("d", i), ConnectionString: cs})
			testkit.Expect(t, reg, err, http.StatusCreated)
			res, err := s.user.TestSqlDatabaseConnectionWithResponse(ctx, reg.JSON201.Id)
			testkit.Expect(t, res, err, http.StatusOK)
			if res.JSON200.Success {
				t.Fatalf("the fake server let the connection in: %s", res.Body)
			}
		}
		got := fake.passwords()
		if len(got) == 0 {
			t.Fatalf("the fake server was asked no password (logs: %s)", s.p.Logs())
		}
		for _, pw := range got {
			if pw != "" {
				t.Fatalf("the server sent the password %q for an empty one", pw)
			}
		}
	})
}

// fake is an in-process listener that speaks the start of the PostgreSQL protocol: it answers the
// SSL request with N, asks for a cleartext password, records what it gets and refuses the login.
type fake struct {
	addr string
	mu   sync.Mutex
	got  []string
}

func (f *fake) passwords() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string{}, f.got...)
}

func fakePostgres(t *testing.T) *fake {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	f := &fake{addr: l.Addr().String()}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go f.serve(c)
		}
	}()
	return f
}

func (f *fake) serve(c net.Conn) {
	defer c.Close()
	for {
		var n uint32
		if binary.Read(c, binary.BigEndian, &n) != nil || n < 8 || n > 10000 {
			return
		}
		body := make([]byte, n-4)
		if _, err := io.ReadFull(c, body); err != nil {
			return
		}
		if binary.BigEndian.Uint32(body) == 80877103 { // SSLRequest: no TLS here
			if _, err := c.Write([]byte("N")); err != nil {
				return
			}
			continue
		}
		break // the startup message
	}
	// AuthenticationCleartextPassword.
	if _, err := c.Write([]byte{'R', 0, 0, 0, 8, 0, 0, 0, 3}); err != nil {
		return
	}
	head := make([]byte, 5)
	if _, err := io.ReadFull(c, head); err != nil || head[0] != 'p' {
		return
	}
	pw := make([]byte, binary.BigEndian.Uint32(head[1:])-4)
	if _, err := io.ReadFull(c, pw); err != nil {
		return
	}
	f.mu.Lock()
	f.got = append(f.got, strings.TrimRight(string(pw), "\x00"))
	f.mu.Unlock()
	msg := "SFATAL\x00C28P01\x00Mpassword authentication failed\x00\x00"
	out := []byte{'E', 0, 0, 0, 0}
	binary.BigEndian.PutUint32(out[1:], uint32(4+len(msg)))
	_, _ = c.Write(append(out, msg...))
}
