//go:build browser

package server_test

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/testkit"
	"github.com/loopwork/loopwork/internal/testkit/browser"
)

// Run with `make docs-check`: it needs Chromium, and fails without it.
const (
	apiTitle = "loopwork workflow platform API"
	v1Title  = "loopwork apps and jobs API (v1)"
)

// TestDocsInBrowser opens both viewers on both interfaces by URL, the way a person follows a shared
// link, in a real headless Chromium: each must render its interface's title, log no error, and make no
// request to any host but the server.
func TestDocsInBrowser(t *testing.T) {
	b, err := browser.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	env := testkit.NewEnv(t)
	server, err := url.Parse(env.URL)
	if err != nil {
		t.Fatal(err)
	}
	pages := []struct {
		path, want, notWant string
	}{
		{"/api/docs", apiTitle, v1Title},
		{"/api/docs?urls.primaryName=" + url.QueryEscape("/v1 — apps and jobs"), v1Title, apiTitle},
		{"/api/redoc", apiTitle, v1Title},
		{"/api/redoc?spec=/v1/openapi.json", v1Title, apiTitle},
		{"/api/redoc?spec=%2fv1%2fopenapi.json", v1Title, apiTitle},
	}
	for _, p := range pages {
		t.Run(p.path, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			ready := "document.body && document.body.innerText.includes(" + strconv.Quote(p.want) + ")"
			v, err := b.Visit(ctx, env.URL+p.path, ready, time.Second)
			for _, pr := range v.Problems {
				t.Errorf("%s", pr)
			}
			offServer(t, server, v)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(v.Text, p.notWant) {
				t.Errorf("shows %q as well as %q", p.notWant, p.want)
			}
		})
	}
}

// offServer fails for every request that went anywhere but the server.
func offServer(t *testing.T, server *url.URL, v browser.Visit) {
	t.Helper()
	for _, r := range v.Requests {
		u, err := url.Parse(r)
		if err != nil {
			t.Errorf("request to unparseable URL %q", r)
			continue
		}
		switch u.Scheme {
		case "data", "blob", "about":
			continue
		}
		if u.Host != server.Host {
			t.Errorf("request off the server: %s", r)
		}
	}
}
