package gallery_test

import (
	"strings"
	"time"
)

// checkRequests compares the requests the case's flow made with the ones it lists: each listed one was
// made once, with a body the expressions hold on, and no other was made.
func (c corpusCase) checkRequests(w *world, prefix string, def []byte) {
	t := w.t
	seen := map[string]int{}
	for _, r := range w.hooks.all() {
		method, path, _ := strings.Cut(r.Key, " ")
		rest, ok := strings.CutPrefix(path, prefix+"/")
		if !ok {
			continue
		}
		key := method + " /" + rest
		checks, listed := c.Run.Requests[key]
		if !listed {
			t.Errorf("the flow made %s, which the case does not list\n%s", r, def)
			continue
		}
		seen[key]++
		matches(t, key+"'s body", r.Body, checks)
	}
	for key := range c.Run.Requests {
		if seen[key] != 1 {
			t.Errorf("%s was made %d times, want once\n%s", key, seen[key], def)
		}
	}
}

// checkEmails waits for the case's e-mails (by the subject its input carries) and compares them.
func (c corpusCase) checkEmails(w *world, subject string, def []byte) {
	t := w.t
	var got []delivered
	deadline := time.Now().Add(20 * time.Second)
	for {
		got = got[:0]
		for _, m := range w.inbox.Messages() {
			if d, err := readDelivered(m.Data); err == nil && d.Subject == subject {
				got = append(got, d)
			}
		}
		if len(got) >= len(c.Run.Emails) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(got) != len(c.Run.Emails) {
		t.Fatalf("%d e-mails, want %d: %+v\n%s", len(got), len(c.Run.Emails), got, def)
	}
	for _, want := range c.Run.Emails {
		found := false
		for _, d := range got {
			if strings.Join(d.To, ",") == strings.Join(want.To, ",") && containsAll(d.Body, want.Contains) {
				found = true
			}
		}
		if !found {
			t.Errorf("no e-mail to %v holding %q among %+v\n%s", want.To, want.Contains, got, def)
		}
	}
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
