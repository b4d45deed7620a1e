package integrations_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/testkit"
)

// sftpServer serves dir over SSH (password login) and the SFTP subsystem on a loopback port, and
// returns the port and the server's public key as an authorized_keys line.
func sftpServer(t *testing.T, dir, password string) (int, string) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &ssh.ServerConfig{PasswordCallback: func(_ ssh.ConnMetadata, pw []byte) (*ssh.Permissions, error) {
		if string(pw) != password {
			return nil, ssh.ErrNoAuth
		}
		return nil, nil
	}}
	cfg.AddHostKey(signer)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go serveSSH(c, cfg, dir)
		}
	}()
	return l.Addr().(*net.TCPAddr).Port, strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey())))
}

func serveSSH(c net.Conn, cfg *ssh.ServerConfig, dir string) {
	_, chans, reqs, err := ssh.NewServerConn(c, cfg)
	if err != nil {
		return
	}
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		ch, chReqs, err := nc.Accept()
		if err != nil {
			continue
		}
		go func() {
			for r := range chReqs {
				ok := r.Type == "subsystem" && len(r.Payload) > 4 && string(r.Payload[4:]) == "sftp"
				r.Reply(ok, nil)
				if ok {
					if srv, err := sftp.NewServer(ch, sftp.WithServerWorkingDirectory(dir)); err == nil {
						srv.Serve()
					}
					ch.Close()
				}
			}
		}()
	}
}

// TestMetadataOfSFTP: the top-level entries of the login directory, read over real SSH and SFTP; a
// wrong password or a host key other than the pinned one is 502.
func TestMetadataOfSFTP(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers(), testkit.WithConfig(func(c *config.Config) {
		c.OutboundAllow = "127.0.0.0/8"
	}))
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	flow := testkit.NewFlow(t, c, twoTasks)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "invoices.csv"), []byte("a,b\n"), 0o600)
	os.Mkdir(filepath.Join(dir, "inbox"), 0o700)
	port, hostKey := sftpServer(t, dir, "right-password")

	cases := []struct {
		data map[string]any
		want int
	}{
		{map[string]any{"password": "right-password", "host_key": hostKey}, http.StatusOK},
		{map[string]any{"password": "right-password"}, http.StatusOK},
		{map[string]any{"password": "wrong-password"}, http.StatusBadGateway},
		{map[string]any{"password": "right-password", "host_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"}, http.StatusBadGateway},
	}
	for i, tc := range cases {
		tc.data["host"], tc.data["port"], tc.data["username"] = "127.0.0.1", port, "ops"
		cred := newCredential(t, c, "sftp", "user_password", tc.data)
		in := integrate(t, c, flow, &cred, "t"+strconv.Itoa(i))
		res, err := c.API.GetIntegrationMetadataWithResponse(ctx, in.Id)
		testkit.Expect(t, res, err, tc.want)
		if strings.Contains(string(res.Body), tc.data["password"].(string)) {
			t.Fatalf("case %d shows the password: %s", i, res.Body)
		}
		if tc.want == http.StatusOK && !strings.Contains(res.JSON200.Metadata, "  inbox/ (directory)\n  invoices.csv (4 bytes)\n") {
			t.Fatalf("case %d: %s", i, res.JSON200.Metadata)
		}
	}
}
