package sso_test

import (
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/dns/dnsmessage"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/testkit"
)

// zone is a DNS server in the test process that answers TXT queries over UDP, the real protocol, from
// records the tests publish; every name without records is NXDOMAIN.
type zone struct {
	mu   sync.Mutex
	txt  map[string][]string
	addr string
}

var dns = sync.OnceValue(func() *zone {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	z := &zone{txt: map[string][]string{}, addr: pc.LocalAddr().String()}
	go z.serve(pc)
	return z
})

// publish sets the TXT records of name (replacing any).
func (z *zone) publish(name string, values ...string) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.txt[strings.ToLower(strings.TrimSuffix(name, "."))] = values
}

// unpublish removes name, which then answers NXDOMAIN.
func (z *zone) unpublish(name string) {
	z.mu.Lock()
	defer z.mu.Unlock()
	delete(z.txt, strings.ToLower(strings.TrimSuffix(name, ".")))
}

func (z *zone) serve(pc net.PacketConn) {
	buf := make([]byte, 4096)
	for {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			return
		}
		if reply := z.answer(buf[:n]); reply != nil {
			pc.WriteTo(reply, from)
		}
	}
}

func (z *zone) answer(query []byte) []byte {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return nil
	}
	q, err := p.Question()
	if err != nil {
		return nil
	}
	z.mu.Lock()
	records, ok := z.txt[strings.ToLower(strings.TrimSuffix(q.Name.String(), "."))]
	z.mu.Unlock()
	rh := dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired, RecursionAvailable: true}
	if !ok {
		rh.RCode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, rh)
	b.StartQuestions()
	b.Question(q)
	b.StartAnswers()
	if q.Type == dnsmessage.TypeTXT {
		for _, v := range records {
			b.TXTResource(dnsmessage.ResourceHeader{Name: q.Name, Type: dnsmessage.TypeTXT, Class: dnsmessage.ClassINET},
				dnsmessage.TXTResource{TXT: []string{v}})
		}
	}
	out, err := b.Finish()
	if err != nil {
		return nil
	}
	return out
}

// newEnv is a server whose ownership checks ask the test's DNS server.
func newEnv(t *testing.T) *testkit.Env {
	return testkit.NewEnv(t, testkit.WithConfig(func(c *config.Config) { c.DNSResolver = dns().addr }))
}

// processEnv is a `loopwork serve` whose ownership checks ask the test's DNS server, over UDP from
// another process as from any resolver: the attacks on domain ownership run against the binary as
// operators configure it.
func processEnv(t *testing.T) *testkit.Env {
	return testkit.NewProcessEnv(t, "LOOPWORK_DNS_RESOLVER="+dns().addr)
}

// proof is the verification the provider shows for domain.
func proof(t *testing.T, p *platformapi.SSOOrganizationResponse, domain string) platformapi.SSODomainVerification {
	t.Helper()
	if p.DomainVerifications != nil {
		for _, v := range *p.DomainVerifications {
			if v.Domain == domain {
				return v
			}
		}
	}
	t.Fatalf("provider %s shows no verification for %s", p.SsoProviderId, domain)
	return platformapi.SSODomainVerification{}
}

// verifyDomain publishes the TXT record the provider shows for domain and verifies it (200).
func verifyDomain(t *testing.T, api *platformapi.ClientWithResponses, p *platformapi.SSOOrganizationResponse, domain string) *platformapi.SSOOrganizationResponse {
	t.Helper()
	v := proof(t, p, domain)
	dns().publish(v.TxtRecordName, v.TxtRecordValue)
	res, err := api.VerifySsoDomainWithResponse(ctx, p.SsoProviderId, domain)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "verify "+domain, res.HTTPResponse, res.Body, http.StatusOK)
	if got := proof(t, res.JSON200, domain); !got.Verified || got.VerifiedAt == nil {
		t.Fatalf("verified domain shows %+v", got)
	}
	return res.JSON200
}
