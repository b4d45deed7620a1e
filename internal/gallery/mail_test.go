package gallery_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/http"
	netmail "net/mail"
	"net/smtp"
	"net/textproto"
	"strings"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/testkit"
)

// delivered is one e-mail the inbox accepted, read as an example's expected e-mails state one.
type delivered struct {
	To      []string
	Subject string
	Body    string
}

// emails waits until the inbox has accepted n e-mails, and reads them.
func (w *world) emails(n int) []delivered {
	t := w.t
	t.Helper()
	var out []delivered
	for _, m := range w.inbox.Wait(t, n) {
		d, err := readDelivered(m.Data)
		if err != nil {
			t.Fatalf("an e-mail the inbox accepted does not read: %v\n%s", err, m.Data)
		}
		out = append(out, d)
	}
	return out
}

// readDelivered reads the header's recipients, the decoded subject and the decoded body, its line ends
// made LF and its trailing ones dropped, as an example writes them.
func readDelivered(data []byte) (delivered, error) {
	msg, err := netmail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		return delivered{}, err
	}
	body, err := io.ReadAll(msg.Body)
	if err != nil {
		return delivered{}, err
	}
	if strings.EqualFold(msg.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
		if body, err = io.ReadAll(quotedprintable.NewReader(bytes.NewReader(body))); err != nil {
			return delivered{}, err
		}
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		return delivered{}, err
	}
	var to []string
	if list, err := msg.Header.AddressList("To"); err == nil {
		for _, a := range list {
			to = append(to, a.Address)
		}
	}
	return delivered{To: to, Subject: subject, Body: strings.TrimRight(strings.ReplaceAll(string(body), "\r\n", "\n"), "\n")}, nil
}

// message is the sample input of the inbound e-mail example: what someone sends to the task's address.
type message struct {
	From        string `json:"from"`
	Subject     string `json:"subject"`
	Text        string `json:"text"`
	Attachments []struct {
		Filename    string `json:"filename"`
		ContentType string `json:"content_type"`
		Content     string `json:"content"`
	} `json:"attachments"`
}

// mime writes the message as a multipart MIME e-mail to the address, with a Message-ID of its own.
func (m message) mime(to string) []byte {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: %s\r\nMessage-ID: <%s@sender.example>\r\nMIME-Version: 1.0\r\n"+
		"Content-Type: multipart/mixed; boundary=%q\r\n\r\n", m.From, to, mime.QEncoding.Encode("utf-8", m.Subject),
		uuid.NewString(), mw.Boundary())
	part, _ := mw.CreatePart(textproto.MIMEHeader{"Content-Type": {"text/plain; charset=utf-8"}})
	_, _ = part.Write([]byte(strings.ReplaceAll(m.Text, "\n", "\r\n")))
	for _, a := range m.Attachments {
		part, _ := mw.CreatePart(textproto.MIMEHeader{
			"Content-Type":              {mime.FormatMediaType(a.ContentType, map[string]string{"name": a.Filename})},
			"Content-Disposition":       {mime.FormatMediaType("attachment", map[string]string{"filename": a.Filename})},
			"Content-Transfer-Encoding": {"base64"},
		})
		_, _ = part.Write([]byte(base64.StdEncoding.EncodeToString([]byte(a.Content))))
	}
	_ = mw.Close()
	return b.Bytes()
}

// receiveEmail creates an e-mail task of the flow, sends the sample message to its address over SMTP,
// and returns the execution the message started.
func (w *world) receiveEmail() uuid.UUID {
	t := w.t
	var m message
	if err := decodeStrict(w.ex.Input, &m); err != nil {
		t.Fatalf("input: the message an inbound e-mail example receives: %v", err)
	}
	if w.ex.Given.EmailTask == "" {
		t.Fatal("given.email_task: the task that handles the message is required")
	}
	created, err := w.owner.API.CreateEmailTaskWithResponse(ctx, platformapi.EmailTaskRequest{Name: "inbound",
		FlowId: &w.flow, TaskName: &w.ex.Given.EmailTask})
	testkit.Expect(t, created, err, http.StatusCreated)
	to := string(created.JSON201.EmailAddress)
	if err := smtp.SendMail(w.env.Server.InboundSMTPAddr(), nil, m.From, []string{to}, m.mime(to)); err != nil {
		t.Fatal(err)
	}
	var exec uuid.UUID
	eventually(t, "the execution the e-mail starts", func() bool {
		res, err := w.owner.API.ListFlowExecutionsWithResponse(ctx, &platformapi.ListFlowExecutionsParams{FlowId: &w.flow})
		testkit.Expect(t, res, err, http.StatusOK)
		if len(res.JSON200.FlowExecutions) == 0 {
			return false
		}
		exec = res.JSON200.FlowExecutions[0].Id
		return true
	})
	return exec
}
