package authn_test

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// browser is a plain client: the link page is no operation of the contracts, so the contract-checking
// transport has nothing to check it against. It does not follow redirects, so each answer is the page's.
var browser = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

type page struct {
	status int
	header http.Header
	body   string
}

func open(t *testing.T, method, address string, form url.Values) page {
	t.Helper()
	var res *http.Response
	var err error
	if method == http.MethodPost {
		res, err = browser.PostForm(address, form)
	} else {
		res, err = browser.Get(address)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return page{res.StatusCode, res.Header, string(b)}
}

var hiddenField = regexp.MustCompile(`<input type="hidden" name="(type|token)" value="([^"]*)">`)

// formOf reads the hidden fields of the page's form, as a browser would submit them.
func formOf(t *testing.T, p page) url.Values {
	t.Helper()
	v := url.Values{}
	for _, m := range hiddenField.FindAllStringSubmatch(p.body, -1) {
		v.Set(m[1], m[2])
	}
	if v.Get("type") == "" || v.Get("token") == "" {
		t.Fatalf("no form with type and token on the page (%d):\n%s", p.status, p.body)
	}
	return v
}

func with(v url.Values, password, confirm string) url.Values {
	out := url.Values{"type": v["type"], "token": v["token"], "password": {password}, "confirm": {confirm}}
	return out
}

// TestInvitationPage follows an invitation the way its recipient does: the e-mailed link opens a page,
// the form sets the password, and the password signs in. The page loads nothing and cannot be framed.
func TestInvitationPage(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	email := "grace-" + time.Now().Format("150405.000000") + "@example.com"
	created, err := admin.API.AdminCreateUserWithResponse(ctx, platformapi.CreateUserRequest{FirstName: "Grace",
		LastName: "Hopper", Email: openapi_types.Email(email), Role: platformapi.AppUser, OrganizationId: &org})
	if err != nil || created.StatusCode() != http.StatusCreated {
		t.Fatalf("invite: %v %s", err, created.Body)
	}
	var text string
	if err := env.DB.Get(&text, `SELECT text_body FROM mail_outbox WHERE recipient = $1`, email); err != nil {
		t.Fatal(err)
	}
	link := regexp.MustCompile(`http\S+/auth/verify\?\S+`).FindString(text)
	if !strings.HasPrefix(link, env.URL+"/auth/verify?type=invite&token=") {
		t.Fatalf("no link to this server's page in the mail:\n%s", text)
	}

	p := open(t, http.MethodGet, link, nil)
	if p.status != 200 || !strings.HasPrefix(p.header.Get("Content-Type"), "text/html") {
		t.Fatalf("link page: %d %s\n%s", p.status, p.header.Get("Content-Type"), p.body)
	}
	for h, want := range map[string]string{"Cache-Control": "no-store", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer"} {
		if got := p.header.Get(h); got != want {
			t.Errorf("%s: %q, want %q", h, got, want)
		}
	}
	if csp := p.header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	for _, want := range []string{email, "Accept your invitation", auth.PasswordRule, `<form method="post" action="/auth/verify">`} {
		if !strings.Contains(p.body, want) {
			t.Errorf("page does not show %q", want)
		}
	}
	if regexp.MustCompile(`(?i)<script|(?:src|href)=`).MatchString(p.body) {
		t.Errorf("page loads or links something:\n%s", p.body)
	}
	form := formOf(t, p)

	// Mistakes leave the form in place and the link usable.
	for _, bad := range []struct{ password, confirm, says string }{
		{"correct horse battery", "correct horse battery staple", "differ"},
		{"password123", "password123", "common passwords"},
		{"aaaabbbbaaaabbbb", "aaaabbbbaaaabbbb", "fewer than 5 different characters"},
		{strings.TrimSuffix(email, "@example.com") + "!", strings.TrimSuffix(email, "@example.com") + "!", "e-mail address"},
	} {
		p := open(t, http.MethodPost, env.URL+"/auth/verify", with(form, bad.password, bad.confirm))
		if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, bad.says) || formOf(t, p).Get("token") != form.Get("token") {
			t.Errorf("%q: %d, want 422 saying %q with the form again:\n%s", bad.password, p.status, bad.says, p.body)
		}
	}

	const chosen = "correct horse battery staple"
	done := open(t, http.MethodPost, env.URL+"/auth/verify", with(form, chosen, chosen))
	if done.status != 200 || !strings.Contains(done.body, "Your password is set") || strings.Contains(done.body, form.Get("token")) {
		t.Fatalf("set password: %d\n%s", done.status, done.body)
	}
	if s := signIn(t, env, email, chosen); s.StatusCode() != 200 {
		t.Fatalf("sign in with the chosen password: %d %s", s.StatusCode(), s.Body)
	}

	again := open(t, http.MethodGet, link, nil)
	if again.status != http.StatusGone || !strings.Contains(again.body, "used already") || strings.Contains(again.body, "<form") {
		t.Errorf("used link: %d\n%s", again.status, again.body)
	}
	if p := open(t, http.MethodPost, env.URL+"/auth/verify", with(form, "another good passphrase", "another good passphrase")); p.status != http.StatusGone {
		t.Errorf("used link submitted again: %d", p.status)
	}
}

// TestLinkPageProblems: each reason a link cannot be used gets its own message, and a recovery link
// gets the reset wording.
func TestLinkPageProblems(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	id, email := env.NewUser(t, org, auth.RoleAppUser)
	expired, err := auth.IssueLink(ctx, env.DB, id, auth.LinkInvite, -time.Second)
	if err != nil {
		t.Fatal(err)
	}
	recovery, err := auth.IssueLink(ctx, env.DB, id, auth.LinkRecovery, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	base := env.URL + "/auth/verify"
	for _, tc := range []struct {
		name, query string
		status      int
		says        string
	}{
		{"unknown token", "?type=invite&token=nosuchtoken", http.StatusNotFound, "not known"},
		{"expired", "?type=invite&token=" + expired, http.StatusGone, "expired"},
		{"wrong type", "?type=invite&token=" + recovery, http.StatusBadRequest, "This is a password-recovery link, not an invitation link (it was sent with type=invite; send it with type=recovery)."},
		{"no token", "?type=invite", http.StatusBadRequest, "incomplete"},
		{"unknown type", "?type=signup&token=" + recovery, http.StatusBadRequest, "incomplete"},
		{"recovery", "?type=recovery&token=" + recovery, http.StatusOK, "Choose a new password for"},
	} {
		p := open(t, http.MethodGet, base+tc.query, nil)
		if p.status != tc.status || !strings.Contains(p.body, tc.says) || !strings.Contains(p.body, "<h1>") {
			t.Errorf("%s: %d, want %d saying %q:\n%s", tc.name, p.status, tc.status, tc.says, p.body)
		}
	}
	// The contract's route applies the same rule and names the same reasons.
	api, _ := env.Clients(t, "")
	weak, err := api.VerifyAuthLinkWithResponse(ctx, platformapi.VerifyRequest{Type: platformapi.Recovery, Token: recovery,
		Password: strings.ToUpper(email)}, testkit.AnonEditor)
	if err != nil || weak.StatusCode() != http.StatusUnprocessableEntity || !strings.Contains(string(weak.Body), "weak_password") {
		t.Errorf("e-mail as password on /auth/v1/verify: %v %d %s", err, weak.StatusCode(), weak.Body)
	}
	old, err := api.VerifyAuthLinkWithResponse(ctx, platformapi.VerifyRequest{Type: platformapi.Invite, Token: expired,
		Password: "a good long passphrase"}, testkit.AnonEditor)
	if err != nil || old.StatusCode() != http.StatusBadRequest || !strings.Contains(string(old.Body), "expired") {
		t.Errorf("expired link on /auth/v1/verify: %v %d %s", err, old.StatusCode(), old.Body)
	}
}
