//go:build browser

package server_test

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/auth"
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

// TestLinkPageInBrowser opens the page of an e-mailed link: its style must pass its own
// Content-Security-Policy (a refused style is a console error) and it must load nothing.
func TestLinkPageInBrowser(t *testing.T) {
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
	id, _ := env.NewUser(t, env.Org(t), auth.RoleAppUser)
	token, err := auth.IssueLink(context.Background(), env.DB, id, auth.LinkInvite, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ query, ready string }{
		{"?type=invite&token=" + token, "document.querySelector('form input[name=password]')"},
		{"?type=invite&token=unknown", "document.querySelector('p.error')"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		// An unknown link answers 404 by design; only its page's own problems count.
		v, err := b.Visit(ctx, env.URL+"/auth/verify"+p.query, p.ready+" && getComputedStyle(document.body).margin === '0px'", 300*time.Millisecond)
		cancel()
		for _, pr := range v.Problems {
			if !strings.Contains(pr, "/auth/verify?type=invite&token=unknown") {
				t.Errorf("%s: %s", p.query, pr)
			}
		}
		offServer(t, server, v)
		if err != nil && !strings.Contains(err.Error(), "answered 404") {
			t.Fatal(err)
		}
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
