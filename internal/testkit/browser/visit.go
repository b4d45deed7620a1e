package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Visit is what one page did while it loaded: every request it made, and every problem a person with
// the developer tools open would have seen (console errors, uncaught exceptions, failed or refused
// loads, responses of 400 and above).
type Visit struct {
	URL      string
	Title    string
	Text     string // document.body.innerText once the page was ready
	Requests []string
	Problems []string
}

// recorder collects a page's events; the reader goroutine feeds it while holding the browser's lock.
type recorder struct {
	mu       sync.Mutex
	v        Visit
	urls     map[string]string // request id -> URL
	lastSeen time.Time
	// docStatus is the status of the page's own document: an error page will never become ready.
	docStatus int
}

func (r *recorder) event(method string, params json.RawMessage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lastSeen = time.Now()
	switch method {
	case "Network.requestWillBeSent":
		var p struct {
			RequestID string `json:"requestId"`
			Request   struct {
				URL string `json:"url"`
			} `json:"request"`
		}
		if json.Unmarshal(params, &p) == nil {
			r.urls[p.RequestID] = p.Request.URL
			r.v.Requests = append(r.v.Requests, p.Request.URL)
		}
	case "Network.responseReceived":
		var p struct {
			Type     string `json:"type"`
			Response struct {
				URL    string `json:"url"`
				Status int    `json:"status"`
			} `json:"response"`
		}
		if json.Unmarshal(params, &p) != nil {
			return
		}
		if p.Type == "Document" && r.docStatus == 0 {
			r.docStatus = p.Response.Status
		}
		if p.Response.Status >= 400 {
			r.problem("HTTP %d for %s", p.Response.Status, p.Response.URL)
		}
	case "Network.loadingFailed":
		var p struct {
			RequestID string `json:"requestId"`
			ErrorText string `json:"errorText"`
			Canceled  bool   `json:"canceled"`
		}
		if json.Unmarshal(params, &p) == nil && !p.Canceled {
			r.problem("load failed (%s): %s", p.ErrorText, r.urls[p.RequestID])
		}
	case "Runtime.consoleAPICalled":
		var p struct {
			Type string `json:"type"`
			Args []struct {
				Value       any    `json:"value"`
				Description string `json:"description"`
			} `json:"args"`
		}
		if json.Unmarshal(params, &p) == nil && (p.Type == "error" || p.Type == "assert") {
			parts := make([]string, len(p.Args))
			for i, a := range p.Args {
				parts[i] = a.Description
				if a.Value != nil {
					parts[i] = fmt.Sprint(a.Value)
				}
			}
			r.problem("console.%s: %s", p.Type, strings.Join(parts, " "))
		}
	case "Runtime.exceptionThrown":
		var p struct {
			Details struct {
				Text      string `json:"text"`
				Exception struct {
					Description string `json:"description"`
				} `json:"exception"`
			} `json:"exceptionDetails"`
		}
		if json.Unmarshal(params, &p) == nil {
			r.problem("uncaught: %s %s", p.Details.Text, p.Details.Exception.Description)
		}
	case "Log.entryAdded":
		var p struct {
			Entry struct {
				Level  string `json:"level"`
				Source string `json:"source"`
				Text   string `json:"text"`
				URL    string `json:"url"`
			} `json:"entry"`
		}
		if json.Unmarshal(params, &p) == nil && p.Entry.Level == "error" {
			r.problem("%s error: %s %s", p.Entry.Source, p.Entry.Text, p.Entry.URL)
		}
	}
}

func (r *recorder) problem(format string, args ...any) {
	r.v.Problems = append(r.v.Problems, fmt.Sprintf(format, args...))
}

// Visit opens url in a new tab and waits until the JavaScript expression ready is true, then until the
// page has been quiet (no event) for settle, so that late requests and errors are seen too.
func (b *Browser) Visit(ctx context.Context, url, ready string, settle time.Duration) (Visit, error) {
	rec := &recorder{v: Visit{URL: url}, urls: map[string]string{}, lastSeen: time.Now()}
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return rec.v, err
	}
	defer func() {
		_ = b.call(context.Background(), "", "Target.closeTarget", map[string]any{"targetId": target.TargetID}, nil)
	}()
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		return rec.v, err
	}
	s := attached.SessionID
	b.mu.Lock()
	b.sessions[s] = rec.event
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.sessions, s)
		b.mu.Unlock()
	}()
	for _, domain := range []string{"Runtime.enable", "Log.enable", "Network.enable", "Page.enable"} {
		if err := b.call(ctx, s, domain, struct{}{}, nil); err != nil {
			return rec.v, err
		}
	}
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := b.call(ctx, s, "Page.navigate", map[string]any{"url": url}, &nav); err != nil {
		return rec.v, err
	}
	if nav.ErrorText != "" {
		return rec.v, fmt.Errorf("navigate to %s: %s", url, nav.ErrorText)
	}
	for {
		var ok bool
		if err := b.eval(ctx, s, "Boolean("+ready+")", &ok); err != nil {
			return b.snapshot(rec), fmt.Errorf("%s never became ready (%s): %w", url, ready, err)
		}
		if ok {
			break
		}
		rec.mu.Lock()
		status := rec.docStatus
		rec.mu.Unlock()
		if status >= 400 {
			return b.snapshot(rec), fmt.Errorf("%s answered %d", url, status)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for {
		rec.mu.Lock()
		quiet := time.Since(rec.lastSeen)
		rec.mu.Unlock()
		if quiet >= settle {
			break
		}
		select {
		case <-ctx.Done():
			return b.snapshot(rec), ctx.Err()
		case <-time.After(settle - quiet):
		}
	}
	v := b.snapshot(rec)
	if err := b.eval(ctx, s, "document.title", &v.Title); err != nil {
		return v, err
	}
	err := b.eval(ctx, s, "document.body ? document.body.innerText : ''", &v.Text)
	return v, err
}

func (b *Browser) snapshot(rec *recorder) Visit {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	v := rec.v
	v.Requests = append([]string(nil), v.Requests...)
	v.Problems = append([]string(nil), v.Problems...)
	return v
}

// eval runs a JavaScript expression in the page and decodes its value.
func (b *Browser) eval(ctx context.Context, session, expr string, out any) error {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := b.call(ctx, session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &res); err != nil {
		return err
	}
	if res.Exception != nil {
		return fmt.Errorf("evaluate %s: %s", expr, res.Exception.Text)
	}
	if len(res.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(res.Result.Value, out)
}
