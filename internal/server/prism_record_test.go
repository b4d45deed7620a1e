package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// prismViolation is one entry of Prism's sl-violations header.
type prismViolation struct {
	Location []string `json:"location"`
	Severity string   `json:"severity"`
	Code     any      `json:"code"`
	Message  string   `json:"message"`
}

// opKey names one operation of one document.
type opKey struct{ doc, id string }

// exchange is what the recorder keeps of a response Prism found wrong.
type exchange struct {
	op             opKey
	method, path   string
	status         int
	violations     []prismViolation
	requestProblem bool
}

// prismRecorder sends requests through the Prism proxies, notes which operation each one called and
// with which statuses, and collects every violation Prism reports.
type prismRecorder struct {
	base    http.RoundTripper
	routers map[string]routers.Router // proxy host -> the document that proxy validates against
	docs    map[string]string         // proxy host -> document name

	mu       sync.Mutex
	statuses map[opKey]map[int]int
	wrong    []exchange
	requests map[opKey]int // calls Prism found a request problem in (informational)
	unrouted []string
}

func newPrismRecorder(t *testing.T, base http.RoundTripper) *prismRecorder {
	return &prismRecorder{base: base, routers: map[string]routers.Router{}, docs: map[string]string{},
		statuses: map[opKey]map[int]int{}, requests: map[opKey]int{}}
}

// route makes requests to proxyURL count as calls of the document's operations.
func (r *prismRecorder) route(t *testing.T, name, proxyURL string, raw []byte) {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatal(err)
	}
	doc.Servers = nil
	rt, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(proxyURL)
	r.routers[u.Host], r.docs[u.Host] = rt, name
}

func (r *prismRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	key := opKey{doc: r.docs[req.URL.Host]}
	if rt := r.routers[req.URL.Host]; rt != nil {
		if route, _, err := rt.FindRoute(req); err == nil {
			key.id = route.Operation.OperationID
		}
	}
	res, err := r.base.RoundTrip(req)
	if err != nil {
		return res, err
	}
	var vs []prismViolation
	if h := res.Header.Get("sl-violations"); h != "" {
		if err := json.Unmarshal([]byte(h), &vs); err != nil {
			vs = []prismViolation{{Location: []string{"response"}, Severity: "Error", Message: "unreadable sl-violations header: " + h}}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if key.id == "" {
		r.unrouted = append(r.unrouted, req.Method+" "+req.URL.Path)
		return res, nil
	}
	if r.statuses[key] == nil {
		r.statuses[key] = map[int]int{}
	}
	r.statuses[key][res.StatusCode]++
	var bad []prismViolation
	for _, v := range vs {
		if len(v.Location) > 0 && v.Location[0] == "request" {
			r.requests[key]++
			continue
		}
		// No violation is excused: every one Prism reported so far was the document's or the server's
		// mistake, and was fixed there.
		bad = append(bad, v)
	}
	if len(bad) > 0 {
		r.wrong = append(r.wrong, exchange{op: key, method: req.Method, path: req.URL.Path, status: res.StatusCode, violations: bad})
	}
	return res, nil
}

func (r *prismRecorder) called(doc, id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.statuses[opKey{doc, id}]) > 0
}

// report fails the test for every response violation, every operation never called and every 5xx
// answer, and logs
// how many operations answered a success at least once.
func (r *prismRecorder) report(t *testing.T, ops []operation) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, w := range r.wrong {
		for _, v := range w.violations {
			t.Errorf("prism: %s %s (%s %s) -> %d: %s at %s (%s)", w.op.doc, w.op.id, w.method, w.path, w.status,
				v.Message, strings.Join(v.Location, "."), v.Severity)
		}
	}
	for _, u := range r.unrouted {
		t.Errorf("request %s matches no operation of the document its proxy validates", u)
	}
	var ok, fourxx []string
	for _, o := range ops {
		s := r.statuses[opKey{o.doc, o.id}]
		if len(s) == 0 {
			t.Errorf("operation %s %s (%s %s) was never called through Prism", o.doc, o.id, strings.ToUpper(o.method), o.path)
			continue
		}
		success := false
		for code := range s {
			success = success || code < 300
			// An answer may match its schema and still be the server's failure: no call here should
			// make it fail.
			if code >= 500 {
				t.Errorf("operation %s %s answered %d", o.doc, o.id, code)
			}
		}
		if success {
			ok = append(ok, o.doc+" "+o.id)
		} else {
			fourxx = append(fourxx, fmt.Sprintf("%s %s %v", o.doc, o.id, codes(s)))
		}
	}
	sort.Strings(fourxx)
	t.Logf("operations called through Prism: %d of %d; answered 2xx: %d; only errors: %d; calls with a request problem Prism noted: %d",
		len(ok)+len(fourxx), len(ops), len(ok), len(fourxx), len(r.requests))
	for _, f := range fourxx {
		t.Logf("  only errors: %s", f)
	}
}

func codes(s map[int]int) []int {
	var out []int
	for c := range s {
		out = append(out, c)
	}
	sort.Ints(out)
	return out
}
