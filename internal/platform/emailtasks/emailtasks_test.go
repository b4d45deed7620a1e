package emailtasks_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/smtp"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit"
)

var ctx = context.Background()

// invoice is a MIME message with a text part, an HTML part and a base64 attachment.
func invoice(to, messageID string) string {
	return strings.ReplaceAll(`From: "Billing" <billing@vendor.example>
To: `+to+`
Subject: =?UTF-8?Q?Invoice_n=C2=B0_42?=
Message-ID: <`+messageID+`>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="outer"

--outer
Content-Type: multipart/alternative; boundary="inner"

--inner
Content-Type: text/plain; charset=utf-8

Total: 99.50 EUR
--inner
Content-Type: text/html; charset=utf-8

<p>Total: <b>99.50</b> EUR</p>
--inner--
--outer
Content-Type: text/csv; name="lines.csv"
Content-Disposition: attachment; filename="lines.csv"
Content-Transfer-Encoding: base64

aXRlbSxwcmljZQpwYXBlciw5OS41MAo=
--outer--
`, "\n", "\r\n")
}

// TestEmailTasks: addresses are created (deduplicated by flow and task name), real SMTP mail to one is
// recorded with its attachment stored and starts the flow with the message as input, once even when
// delivered twice; unknown and deleted addresses are refused at RCPT; tenancy holds.
func TestEmailTasks(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithConfig(func(c *config.Config) {
		c.InboundSMTPAddr, c.InboundDomain = "127.0.0.1:0", "in.loopwork.test"
	}))
	addr := env.Server.InboundSMTPAddr()
	org, other := env.Org(t), env.Org(t)
	c, o := env.User(t, org, auth.RoleAppUser), env.User(t, other, auth.RoleAppUser)
	if err := credits.Grant(ctx, env.DB, org, 10); err != nil {
		t.Fatal(err)
	}
	flow, err := c.API.CreateFlowWithResponse(ctx, platformapi.FlowCreateRequest{DisplayName: "invoices", Definition: json.RawMessage(
		`{"version": 1, "tasks": [{"name": "read", "type": "transform", "parameters": {"expression": "{subject, from, n: (.attachments | length)}"}}], "edges": []}`)})
	testkit.Expect(t, flow, err, http.StatusCreated)
	req := platformapi.EmailTaskRequest{Name: "invoices", FlowId: &flow.JSON201.Id, TaskName: new("read")}
	created, err := c.API.CreateEmailTaskWithResponse(ctx, req)
	testkit.Expect(t, created, err, http.StatusCreated)
	task := created.JSON201
	if !strings.HasSuffix(string(task.EmailAddress), "@in.loopwork.test") || *task.Status != "active" {
		t.Fatalf("created %s", created.Body)
	}
	same, err := c.API.CreateEmailTaskWithResponse(ctx, req)
	testkit.Expect(t, same, err, http.StatusOK)
	if same.JSON200.TaskId != task.TaskId {
		t.Fatalf("deduplication: %s", same.Body)
	}
	bad, err := c.API.CreateEmailTaskWithResponse(ctx, platformapi.EmailTaskRequest{Name: "x", FlowId: &flow.JSON201.Id, TaskName: new("nope")})
	testkit.Expect(t, bad, err, http.StatusUnprocessableEntity)
	alone, err := c.API.CreateEmailTaskWithResponse(ctx, platformapi.EmailTaskRequest{Name: "x", TaskName: new("read")})
	testkit.Expect(t, alone, err, http.StatusUnprocessableEntity)
	notTheirs, err := o.API.CreateEmailTaskWithResponse(ctx, req)
	testkit.Expect(t, notTheirs, err, http.StatusNotFound)

	to := string(task.EmailAddress)
	for i := 0; i < 2; i++ { // the second delivery of the same message is recorded once
		if err := smtp.SendMail(addr, nil, "billing@vendor.example", []string{to}, []byte(invoice(to, "inv-42@vendor.example"))); err != nil {
			t.Fatal(err)
		}
	}
	st, err := c.API.GetEmailTaskStatusWithResponse(ctx, task.TaskId)
	testkit.Expect(t, st, err, http.StatusOK)
	if *st.JSON200.EmailCount != 1 || st.JSON200.LastEmailReceived == nil || time.Since(*st.JSON200.LastEmailReceived) > time.Minute {
		t.Fatalf("status %s", st.Body)
	}
	var exec uuid.UUID
	if err := env.DB.Get(&exec, `SELECT execution_id FROM email_messages WHERE email_task_id = $1`, task.TaskId); err != nil {
		t.Fatal(err)
	}
	done := testkit.WaitForExecution(t, c, exec, "completed", "failed")
	in, _ := json.Marshal(done.Input)
	var input struct {
		From, Subject, Text, HTML, TaskName string
		Attachments                         []struct{ Filename, URI string }
	}
	json.Unmarshal(in, &input)
	if done.Status != "completed" || input.From != "billing@vendor.example" || input.Subject != "Invoice n° 42" ||
		!strings.Contains(input.Text, "99.50") || !strings.Contains(input.HTML, "<b>99.50</b>") || len(input.Attachments) != 1 {
		t.Fatalf("execution %s input %s", done.Status, in)
	}
	link, err := c.API.ResolveStorageUriWithResponse(ctx, platformapi.ResolveUriRequest{Uri: input.Attachments[0].URI})
	testkit.Expect(t, link, err, http.StatusOK)
	if got := testkit.Download(t, link.JSON200.DownloadUrl); got != "item,price\npaper,99.50\n" {
		t.Fatalf("attachment %q", got)
	}
	theirs, err := o.API.ResolveStorageUriWithResponse(ctx, platformapi.ResolveUriRequest{Uri: input.Attachments[0].URI})
	testkit.Expect(t, theirs, err, http.StatusNotFound)
	// The second delivery's attachment was not kept: one file for the one recorded message.
	stored, _ := filepath.Glob(filepath.Join(env.Config.StorageDir, "org", org.String(), "email", task.TaskId.String(), "*", "*"))
	if len(stored) != 1 {
		t.Fatalf("%d attachment files for one message: %v", len(stored), stored)
	}

	// Addresses that are not an active task's are refused at RCPT.
	for _, rcpt := range []string{"t-0000000000000000@in.loopwork.test", strings.Replace(to, "in.loopwork.test", "elsewhere.test", 1)} {
		if err := smtp.SendMail(addr, nil, "x@example.com", []string{rcpt}, []byte("Subject: hi\r\n\r\nhi\r\n")); err == nil ||
			!strings.Contains(err.Error(), "550") {
			t.Errorf("%s: %v", rcpt, err)
		}
	}
	// Tenancy: another organization sees none of it.
	miss, err := o.API.GetEmailTaskStatusWithResponse(ctx, task.TaskId)
	testkit.Expect(t, miss, err, http.StatusNotFound)
	random, err := o.API.GetEmailTaskStatusWithResponse(ctx, uuid.New())
	testkit.SameAsMissing(t, miss, random)
	del, err := o.API.DeleteEmailTaskWithResponse(ctx, task.TaskId)
	testkit.Expect(t, del, err, http.StatusNotFound)
	list, err := o.API.ListEmailTasksWithResponse(ctx, nil)
	testkit.Expect(t, list, err, http.StatusOK)
	if list.JSON200.Total != 0 {
		t.Fatalf("another organization lists %s", list.Body)
	}
	mine, err := c.API.ListEmailTasksWithResponse(ctx, &platformapi.ListEmailTasksParams{FlowId: &flow.JSON201.Id})
	testkit.Expect(t, mine, err, http.StatusOK)
	if mine.JSON200.Total != 1 {
		t.Fatalf("by flow %s", mine.Body)
	}

	// A deleted task's address refuses mail from then on.
	gone, err := c.API.DeleteEmailTaskWithResponse(ctx, task.TaskId)
	testkit.Expect(t, gone, err, http.StatusNoContent)
	again, err := c.API.DeleteEmailTaskWithResponse(ctx, task.TaskId)
	testkit.Expect(t, again, err, http.StatusNotFound)
	if err := smtp.SendMail(addr, nil, "x@example.com", []string{to}, []byte(invoice(to, "inv-43@vendor.example"))); err == nil {
		t.Fatal("a deleted task's address accepted mail")
	}
	var kept int
	env.DB.Get(&kept, `SELECT count(*) FROM email_messages WHERE email_task_id = $1`, task.TaskId)
	if kept != 0 {
		t.Fatalf("%d messages of a deleted task kept", kept)
	}
}

// TestNoListenerByDefault: without the setting no SMTP port is opened.
func TestNoListenerByDefault(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	if a := env.Server.InboundSMTPAddr(); a != "" {
		t.Fatalf("listening on %s", a)
	}
}
