package authn

import (
	"crypto/sha256"
	"encoding/base64"
	"html/template"
)

// pageCSS is the page's only style; the Content-Security-Policy allows exactly this text by its hash,
// so the page needs no inline-style exception and loads nothing.
const pageCSS = `body{font:16px/1.5 system-ui,sans-serif;color:#222;background:#f6f6f6;margin:0}
main{max-width:28rem;margin:4rem auto;padding:2rem;background:#fff;border-radius:8px;box-shadow:0 1px 4px #0002}
h1{font-size:1.4rem;margin:0 0 1rem}label{display:block;margin:1rem 0 .25rem;font-weight:600}
input[type=password]{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem;border:1px solid #999;border-radius:4px}
button{margin-top:1.5rem;padding:.6rem 1.2rem;font-size:1rem;border:0;border-radius:4px;background:#2457c5;color:#fff}
.rule{color:#555;font-size:.9rem}.error{color:#a40000;background:#fdeaea;padding:.6rem;border-radius:4px}
.ok{color:#155724;background:#e6f4ea;padding:.6rem;border-radius:4px}`

var pageCSP = "default-src 'none'; style-src 'sha256-" + cssHash() + "'; form-action 'self'; " +
	"frame-ancestors 'none'; base-uri 'none'"

func cssHash() string {
	sum := sha256.Sum256([]byte(pageCSS))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// pageData is what the link page shows. Exactly one of Form, Done and the bare Problem is the page's
// purpose; Problem beside Form is an error the person can correct in the form.
type pageData struct {
	Heading      string
	Problem      string
	Form         bool
	Done         bool
	Kind         string
	Token        string
	Email        string
	Organization string
	Rule         string
	MinLength    int
	MaxLength    int
}

var linkPage = template.Must(template.New("verify").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>{{.Heading}} — loopwork</title>
<style>` + pageCSS + `</style>
</head>
<body>
<main>
<h1>{{.Heading}}</h1>
{{if .Problem}}<p class="error" role="alert">{{.Problem}}</p>{{end}}
{{if .Done}}<p class="ok">Your password is set. Sign in as <strong>{{.Email}}</strong> with it.</p>
{{else if .Form}}
<p>{{if eq .Kind "invite"}}You are invited to <strong>{{.Organization}}</strong>. Choose a password for
<strong>{{.Email}}</strong> to accept.{{else}}Choose a new password for <strong>{{.Email}}</strong>. Signing in
elsewhere with the old one stops working.{{end}}</p>
<form method="post" action="/auth/verify">
<input type="hidden" name="type" value="{{.Kind}}">
<input type="hidden" name="token" value="{{.Token}}">
<input type="email" name="username" value="{{.Email}}" autocomplete="username" hidden>
<label for="password">New password</label>
<input type="password" id="password" name="password" required minlength="{{.MinLength}}" maxlength="{{.MaxLength}}" autocomplete="new-password" aria-describedby="rule">
<p class="rule" id="rule">{{.Rule}}</p>
<label for="confirm">Repeat the password</label>
<input type="password" id="confirm" name="confirm" required minlength="{{.MinLength}}" maxlength="{{.MaxLength}}" autocomplete="new-password">
<button type="submit">{{if eq .Kind "invite"}}Accept the invitation{{else}}Set the new password{{end}}</button>
</form>
{{else}}<p>Ask the person who invited you for a new invitation, or ask for a new password-reset e-mail.</p>
{{end}}
</main>
</body>
</html>
`))
