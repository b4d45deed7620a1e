package monitor_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape is one answer of /metrics, parsed.
type scrape map[string]*dto.MetricFamily

// get scrapes url with token (none when empty) and parses the text format; it fails the test on any
// status but 200.
func get(t testing.TB, url, token string) scrape {
	t.Helper()
	res := fetch(t, url, token)
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s answered %d", url, res.StatusCode)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("content type %q, want Prometheus's text format", ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return families
}

// value is the value of the series of name whose labels include want, and whether there is one. A
// histogram answers its count of observations.
func (s scrape) value(name string, want map[string]string) (float64, bool) {
	f := s[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if have[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

// must is value for a series the test needs.
func (s scrape) must(t testing.TB, name string, want map[string]string) float64 {
	t.Helper()
	v, ok := s.value(name, want)
	if !ok {
		t.Fatalf("no series %s%v", name, want)
	}
	return v
}

// waitFor scrapes until the series of name with labels reaches at least n (background work counts
// when it is done), failing the test after 20 s; it answers the last scrape.
func waitFor(t testing.TB, url, token, name string, labels map[string]string, n float64) scrape {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := get(t, url, token)
		if v, _ := s.value(name, labels); v >= n {
			return s
		}
		if time.Now().After(deadline) {
			v, _ := s.value(name, labels)
			t.Fatalf("%s%v is %v after 20 s, want %v", name, labels, v, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// fetch sends GET url with the bearer token (none when empty); the caller closes the body.
func fetch(t testing.TB, url, token string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
