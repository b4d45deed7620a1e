package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"
)

// Mix is the load script's traffic (internal/tools/load.sh) as a Go client, for runs that must count
// every answer: job submission, the job list filtered by status and tag, the job count, and, one call in
// Every, the start of a flow execution (background work for the engine and River).
type Mix struct {
	Base, Key, App string
	// Flow, when set, is started every Every calls.
	Flow  string
	Every int
	HTTP  *http.Client

	n         atomic.Int64
	Submitted atomic.Int64 // jobs answered 201
	Started   atomic.Int64 // executions answered 201
}

// Do makes the next call of the mix; any answer but the expected status is an error naming it.
func (m *Mix) Do(int) error {
	i := m.n.Add(1)
	switch {
	case m.Flow != "" && m.Every > 0 && i%int64(m.Every) == 0:
		body := fmt.Sprintf(`{"flow_id": %q, "input": {"n": %d}}`, m.Flow, i)
		if err := m.call("POST", "/api/flow-executions", body, http.StatusCreated); err != nil {
			return err
		}
		m.Started.Add(1)
	case i%3 == 0:
		if err := m.call("POST", "/v1/apps/"+m.App+"/jobs", `{"input":{"text":"hello","n":1},"tags":["t1","t3"]}`, http.StatusCreated); err != nil {
			return err
		}
		m.Submitted.Add(1)
	case i%3 == 1:
		return m.call("GET", "/v1/apps/"+m.App+"/jobs?statusIn=SCHEDULED&tags=t3&size=10&sortBy=id", "", http.StatusOK)
	default:
		return m.call("GET", "/v1/apps/"+m.App+"/jobs/count", "", http.StatusOK)
	}
	return nil
}

func (m *Mix) call(method, path, body string, want int) error {
	var r io.Reader
	if body != "" {
		r = bytes.NewReader([]byte(body))
	}
	req, err := http.NewRequest(method, m.Base+path, r)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+m.Key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	c := m.HTTP
	if c == nil {
		c = http.DefaultClient
	}
	res, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		return fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, out)
	}
	return nil
}

// NewApp creates the app the mix submits to, through base with key, and returns its id.
func NewApp(base, key string) (string, error) {
	req, _ := http.NewRequest("POST", base+"/v1/apps", bytes.NewReader(
		[]byte(fmt.Sprintf(`{"name": "load %d"}`, time.Now().UnixNano()))))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	var app struct{ ID string }
	if res.StatusCode != http.StatusCreated && res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		return "", fmt.Errorf("create app: %d %s", res.StatusCode, b)
	}
	err = json.NewDecoder(res.Body).Decode(&app)
	return app.ID, err
}
