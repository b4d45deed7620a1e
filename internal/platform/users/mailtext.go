package users

import (
	"bytes"
	"fmt"
	htmltemplate "html/template"
	texttemplate "text/template"
	"time"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/mail"
)

// linkMail is what an invitation or password e-mail says.
type linkMail struct {
	Kind         auth.LinkKind
	FirstName    string
	Organization string
	// Sender is the administrator who asked for the link, as "First Last (address)"; SenderName is
	// how the mail refers to them again.
	Sender     string
	SenderName string
	Link       string
	Lifetime   time.Duration
	Expires    time.Time
}

// ExpiresIn is the lifetime in words, for example "72 hours".
func (m linkMail) ExpiresIn() string {
	switch {
	case m.Lifetime >= time.Hour && m.Lifetime%time.Hour == 0:
		return plural(int(m.Lifetime/time.Hour), "hour")
	case m.Lifetime >= time.Minute:
		return plural(int(m.Lifetime/time.Minute), "minute")
	}
	return plural(int(m.Lifetime/time.Second), "second")
}

// ExpiresAt is the moment the link stops working, in UTC.
func (m linkMail) ExpiresAt() string { return m.Expires.Format("Monday, 2 January 2006 at 15:04 UTC") }

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// The bodies are templates so that the HTML one escapes names and links that users chose.
var (
	inviteText = texttemplate.Must(texttemplate.New("invite").Parse(`Hello {{.FirstName}},

{{.Sender}} has invited you to join {{.Organization}} on Loopwork.

To accept the invitation and choose your password, open this link:

{{.Link}}

The link works once and expires in {{.ExpiresIn}}, on {{.ExpiresAt}}. If it has expired, ask {{.SenderName}} to send you a new one.

If you did not expect this invitation, you can ignore this e-mail.
`))
	inviteHTML = htmltemplate.Must(htmltemplate.New("invite").Parse(`<!DOCTYPE html>
<html><body style="font-family: sans-serif; line-height: 1.5">
<p>Hello {{.FirstName}},</p>
<p>{{.Sender}} has invited you to join <strong>{{.Organization}}</strong> on Loopwork.</p>
<p><a href="{{.Link}}">Accept the invitation and choose your password</a></p>
<p>The link works once and expires in {{.ExpiresIn}}, on {{.ExpiresAt}}. If it has expired, ask {{.SenderName}} to send you a new one.</p>
<p>If you did not expect this invitation, you can ignore this e-mail.</p>
<p style="color: #666; font-size: small">If the link does not work, copy this address into your browser: {{.Link}}</p>
</body></html>
`))
	recoveryText = texttemplate.Must(texttemplate.New("recovery").Parse(`Hello {{.FirstName}},

{{.Sender}} has asked Loopwork to send you a link to set a new password for your account in {{.Organization}}.

To choose a new password, open this link:

{{.Link}}

The link works once and expires in {{.ExpiresIn}}, on {{.ExpiresAt}}.

If you did not expect this e-mail, you can ignore it: your current password stays as it is.
`))
	recoveryHTML = htmltemplate.Must(htmltemplate.New("recovery").Parse(`<!DOCTYPE html>
<html><body style="font-family: sans-serif; line-height: 1.5">
<p>Hello {{.FirstName}},</p>
<p>{{.Sender}} has asked Loopwork to send you a link to set a new password for your account in <strong>{{.Organization}}</strong>.</p>
<p><a href="{{.Link}}">Choose a new password</a></p>
<p>The link works once and expires in {{.ExpiresIn}}, on {{.ExpiresAt}}.</p>
<p>If you did not expect this e-mail, you can ignore it: your current password stays as it is.</p>
<p style="color: #666; font-size: small">If the link does not work, copy this address into your browser: {{.Link}}</p>
</body></html>
`))
)

// composeLinkMail renders the subject and both bodies; the caller adds the recipient.
func composeLinkMail(m linkMail) (mail.Message, error) {
	subject := "You are invited to join " + m.Organization + " on Loopwork"
	text, html := inviteText, inviteHTML
	if m.Kind == auth.LinkRecovery {
		subject = "Set a new password for " + m.Organization + " on Loopwork"
		text, html = recoveryText, recoveryHTML
	}
	var tb, hb bytes.Buffer
	if err := text.Execute(&tb, m); err != nil {
		return mail.Message{}, err
	}
	if err := html.Execute(&hb, m); err != nil {
		return mail.Message{}, err
	}
	return mail.Message{Subject: subject, Text: tb.String(), HTML: hb.String()}, nil
}
