package integrations

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"

	"github.com/loopwork/loopwork/internal/netguard"
)

// maxEntries bounds a directory listing in a description.
const maxEntries = 500

// describeSFTP lists the top-level entries of the login directory of an SFTP server, connecting
// through the guard. With a host_key in the credential the server must present that key; without
// one, any key is accepted (the credential's owner chose not to pin it).
func describeSFTP(ctx context.Context, t Target) (string, error) {
	d := t.Secret.Data
	host := strOf(d["host"])
	port := 22
	if p, ok := d["port"].(float64); ok {
		port = int(p)
	}
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	cfg, err := sshConfig(d)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := t.Guard.DialContext(ctx, "tcp", addr)
	if err != nil {
		if errors.Is(err, netguard.ErrBlocked) {
			return "", err
		}
		return "", fmt.Errorf("%w: %s", ErrUpstream, redact(err, d))
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	sc, chans, reqs, err := ssh.NewClientConn(conn, addr, cfg)
	if err != nil {
		conn.Close()
		return "", fmt.Errorf("%w: %s", ErrUpstream, redact(err, d))
	}
	client := ssh.NewClient(sc, chans, reqs)
	defer client.Close()
	fs, err := sftp.NewClient(client)
	if err != nil {
		return "", fmt.Errorf("%w: %s", ErrUpstream, redact(err, d))
	}
	defer fs.Close()
	entries, err := fs.ReadDir(".")
	if err != nil {
		return "", fmt.Errorf("%w: %s", ErrUpstream, redact(err, d))
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	var b strings.Builder
	fmt.Fprintf(&b, "SFTP server %s, login directory of %q:\n", addr, strOf(d["username"]))
	for i, e := range entries {
		if i == maxEntries {
			fmt.Fprintf(&b, "(%d more entries not shown)\n", len(entries)-i)
			break
		}
		if e.IsDir() {
			fmt.Fprintf(&b, "  %s/ (directory)\n", e.Name())
		} else {
			fmt.Fprintf(&b, "  %s (%d bytes)\n", e.Name(), e.Size())
		}
	}
	if len(entries) == 0 {
		b.WriteString("  (empty)\n")
	}
	return b.String(), nil
}

func sshConfig(d map[string]any) (*ssh.ClientConfig, error) {
	cfg := &ssh.ClientConfig{User: strOf(d["username"]), Timeout: 10 * time.Second,
		HostKeyCallback: ssh.InsecureIgnoreHostKey()} //nolint:gosec // pinned below when the credential names a key
	if k := strOf(d["host_key"]); k != "" {
		pub, _, _, _, err := ssh.ParseAuthorizedKey([]byte(k))
		if err != nil {
			return nil, fmt.Errorf("%w: the credential's host_key is not an authorized_keys line", ErrUpstream)
		}
		cfg.HostKeyCallback = ssh.FixedHostKey(pub)
	}
	if pw := strOf(d["password"]); pw != "" {
		cfg.Auth = append(cfg.Auth, ssh.Password(pw))
	}
	if pk := strOf(d["private_key"]); pk != "" {
		var signer ssh.Signer
		var err error
		if pp := strOf(d["passphrase"]); pp != "" {
			signer, err = ssh.ParsePrivateKeyWithPassphrase([]byte(pk), []byte(pp))
		} else {
			signer, err = ssh.ParsePrivateKey([]byte(pk))
		}
		if err != nil {
			// The parser's message is about the format; it never quotes the key.
			return nil, fmt.Errorf("%w: the credential's private_key cannot be read: %v", ErrUpstream, err)
		}
		cfg.Auth = append(cfg.Auth, ssh.PublicKeys(signer))
	}
	return cfg, nil
}
