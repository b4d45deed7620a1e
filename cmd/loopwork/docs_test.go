package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/internal/testkit"
)

// pages are the README and docs/, as a reader finds them.
func pages(t *testing.T) map[string]string {
	t.Helper()
	paths, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{"README.md": readFile(t, "../../README.md")}
	for _, p := range paths {
		out["docs/"+filepath.Base(p)] = readFile(t, p)
	}
	return out
}

var (
	fenced     = regexp.MustCompile("(?s)```[a-z]*\n(.*?)```")
	inlineCode = regexp.MustCompile("`([^`\n]+)`")
	methodPath = regexp.MustCompile(`\b(GET|POST|PUT|PATCH|DELETE)\s+` + "`?" + `(/[^\s` + "`" + `)\]"',;]*)`)
	barePath   = regexp.MustCompile(`^(/(?:api|v1|auth|health|admin|metrics)[^\s?]*)`)
	urlPath    = regexp.MustCompile(`https?://127\.0\.0\.1:8080(/[^\s'"?]*)`)
	makeTarget = regexp.MustCompile(`(?:^|[\s;&|(])make ([a-z][a-z-]*)`)
	command    = regexp.MustCompile(`(?:^|\s|bin/)loopwork (admin )?([a-z][a-z-]*)`)
	targetLine = regexp.MustCompile(`(?m)^([a-z][a-z-]*):`)
	usageLine  = regexp.MustCompile(`(?m)^  ([a-z][a-z-]*)`)
)

// notRoutes are paths the pages name that are not routes of loopwork: prefixes naming an interface or an
// area, and paths of other programs.
var notRoutes = map[string]bool{
	"/api": true, "/v1": true, "/auth/v1": true, "/admin": true, "/admin/river/api/": true,
	"/v1/traces": true, // an OpenTelemetry collector's traces receiver
}

// code returns the code a page shows: its fenced blocks and its inline code spans.
func code(page string) []string {
	var out []string
	for _, m := range fenced.FindAllStringSubmatch(page, -1) {
		out = append(out, m[1])
	}
	for _, m := range inlineCode.FindAllStringSubmatch(fenced.ReplaceAllString(page, ""), -1) {
		out = append(out, m[1])
	}
	return out
}

// TestDocsNameWhatExists: every route the README and docs/ name is an operation of a contract or answers
// on a real server, and every make target and loopwork command they show exists, so a page cannot send a
// reader to something that was renamed or never was.
func TestDocsNameWhatExists(t *testing.T) {
	t.Parallel()
	contract := contractRoutes(t)
	makefile := readFile(t, "../../Makefile")
	targets := map[string]bool{}
	for _, m := range targetLine.FindAllStringSubmatch(makefile, -1) {
		targets[m[1]] = true
	}
	commands, adminCommands := map[string]bool{}, map[string]bool{}
	for _, m := range usageLine.FindAllStringSubmatch(usage, -1) {
		commands[m[1]] = true
	}
	for _, m := range usageLine.FindAllStringSubmatch(adminUsage, -1) {
		adminCommands[m[1]] = true
	}

	type route struct{ page, method, path string }
	var probe []route
	for name, page := range pages(t) {
		var routes []route
		for _, m := range methodPath.FindAllStringSubmatch(page, -1) {
			routes = append(routes, route{name, m[1], m[2]})
		}
		for _, c := range code(page) {
			if m := barePath.FindStringSubmatch(c); m != nil {
				routes = append(routes, route{name, "", m[1]})
			}
			for _, m := range urlPath.FindAllStringSubmatch(c, -1) {
				routes = append(routes, route{name, "", m[1]})
			}
			for _, m := range makeTarget.FindAllStringSubmatch(c, -1) {
				if !targets[m[1]] {
					t.Errorf("%s shows make %s, which the Makefile does not have", name, m[1])
				}
			}
			for _, m := range command.FindAllStringSubmatch(c, -1) {
				if m[1] != "" && !adminCommands[m[2]] || m[1] == "" && !commands[m[2]] {
					t.Errorf("%s shows %q, which is not a command of the binary", name, m[0])
				}
			}
		}
		for _, r := range routes {
			r.path = strings.TrimRight(strings.SplitN(r.path, "?", 2)[0], ".:")
			if notRoutes[r.path] || r.path == "" {
				continue
			}
			if !contract.has(r.method, r.path) {
				probe = append(probe, r)
			}
		}
	}
	if len(probe) == 0 {
		return
	}
	// Routes outside the contracts (metrics, River's UI, the sign-in and link pages, the documentation
	// viewers) are asked of a real server: without credentials they may refuse, but not be missing.
	env := testkit.NewEnv(t, testkit.WithoutWorkers())
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, r := range probe {
		method := r.method
		if method == "" {
			method = http.MethodGet
		}
		path := regexp.MustCompile(`\{[^}]*\}|…`).ReplaceAllString(r.path, "00000000-0000-4000-8000-000000000000")
		req, err := http.NewRequest(method, env.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		// A path named without its method may be served under another one than GET.
		if res.StatusCode == http.StatusNotFound || r.method != "" && res.StatusCode == http.StatusMethodNotAllowed {
			t.Errorf("%s names %s %s: in neither contract, and the server answers %d", r.page, r.method, r.path, res.StatusCode)
		}
	}
}

// routes are the operations of both contracts, as path patterns per method.
type routes map[string][]*regexp.Regexp

func contractRoutes(t *testing.T) routes {
	t.Helper()
	out := routes{}
	param := regexp.MustCompile(`\\\{[^}]*\}`)
	for _, doc := range []string{"../../gen/platformapi/openapi.json", "../../gen/v1api/openapi.json"} {
		var d struct {
			Paths map[string]map[string]json.RawMessage `json:"paths"`
		}
		if err := json.Unmarshal([]byte(readFile(t, doc)), &d); err != nil {
			t.Fatal(err)
		}
		for p, ops := range d.Paths {
			re := regexp.MustCompile("^" + param.ReplaceAllString(regexp.QuoteMeta(p), `[^/]+`) + "/?$")
			for m := range ops {
				out[strings.ToUpper(m)] = append(out[strings.ToUpper(m)], re)
			}
		}
	}
	return out
}

// has reports whether the contracts have path under method (any method when method is empty).
func (r routes) has(method, path string) bool {
	for m, res := range r {
		if method != "" && m != method {
			continue
		}
		for _, re := range res {
			if re.MatchString(path) {
				return true
			}
		}
	}
	return false
}

// TestDocsCommands keeps the command reference whole: every admin command is documented, with the way to
// run it beside make run, and no page refers to documents its readers do not have.
func TestDocsCommands(t *testing.T) {
	t.Parallel()
	all := pages(t)
	commands := section(t, all["docs/operations.md"], "Commands")
	for _, m := range usageLine.FindAllStringSubmatch(adminUsage, -1) {
		if !strings.Contains(commands, "loopwork admin "+m[1]) {
			t.Errorf("docs/operations.md's Commands does not document loopwork admin %s", m[1])
		}
	}
	if !strings.Contains(commands, "make admin ARGS=") {
		t.Error("docs/operations.md's Commands does not say how to run admin commands beside make run")
	}
	for name, page := range all {
		if m := regexp.MustCompile(`Document \d|§\s*\d|DESIGN\.md`).FindString(page); m != "" {
			t.Errorf("%s refers to %q, which its readers do not have", name, m)
		}
	}
	link := regexp.MustCompile(`\]\(([^)#:]+)(?:#[^)]*)?\)`)
	for name, page := range all {
		for _, m := range link.FindAllStringSubmatch(page, -1) {
			if _, err := os.Stat(filepath.Join("../..", filepath.Dir(name), m[1])); err != nil {
				t.Errorf("%s links to %s, which does not exist", name, m[1])
			}
		}
	}
}
