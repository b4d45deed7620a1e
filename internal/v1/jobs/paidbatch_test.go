package jobs

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit/testdb"
	"github.com/loopwork/loopwork/internal/v1/access"
)

// batchFixture is an organization with an app and a user, and the balance it was granted.
func batchFixture(t *testing.T, db *sqlx.DB, granted int64) (*access.Grant, *auth.Principal) {
	t.Helper()
	g := &access.Grant{}
	p := &auth.Principal{Role: auth.RoleOrgAdmin, Credential: auth.CredentialJWT}
	err := db.Get(&g.App, `WITH o AS (INSERT INTO organizations (name) VALUES ($1) RETURNING id)
		INSERT INTO apps (organization_id, name) SELECT id, 'app' FROM o RETURNING *`, "org "+uuid.NewString())
	if err == nil {
		err = db.Get(&p.UserID, `INSERT INTO users (organization_id, email, first_name, last_name, role)
			VALUES ($1, $2, 'A', 'B', 'org_admin') RETURNING id`, g.App.OrganizationID, uuid.NewString()+"@example.com")
	}
	if err == nil {
		err = credits.Grant(context.Background(), db, g.App.OrganizationID, granted)
	}
	if err != nil {
		t.Fatal(err)
	}
	p.OrganizationID = g.App.OrganizationID
	return g, p
}

func waiting(g *access.Grant, p *auth.Principal, n int, edit func(*submission)) *paid {
	ttl := 60
	s := submission{input: fmt.Sprintf(`{"n": %d}`, n), metadata: `{}`, tags: []string{}, priority: 5, ttlSeconds: &ttl}
	if edit != nil {
		edit(&s)
	}
	return &paid{ctx: context.Background(), g: g, p: p, sub: s, status: "SCHEDULED", processing: "AWAITING_HUMAN",
		out: &v1api.JobSubmitted{}, done: make(chan struct{})}
}

// TestBatchPaysEachOrganization: one statement writes the jobs of two organizations, each with what
// its submission carried, its usage record and its credit; the jobs of an organization whose balance
// would not stay comfortable after all of them are left to the careful path, with nothing written.
func TestBatchPaysEachOrganization(t *testing.T) {
	t.Parallel()
	db := testdb.DB(t)
	rich, richP := batchFixture(t, db, 100_000)
	// Comfortable after one job, not after two: both are left for the careful path.
	poor, poorP := batchFixture(t, db, credits.Comfortable+1)
	batchID, deadline := "b-1", time.Now().Add(time.Hour).Truncate(time.Millisecond)
	batch := []*paid{
		waiting(rich, richP, 0, func(s *submission) { s.tags = []string{"x", "y"}; s.batchID = &batchID }),
		waiting(poor, poorP, 1, nil),
		waiting(rich, richP, 2, func(s *submission) { s.ttlSeconds, s.deadline, s.priority = nil, &deadline, 9 }),
		waiting(poor, poorP, 3, nil),
	}
	writePaid(db, batch)
	for i, b := range batch {
		if b.err != nil || b.ok != (i%2 == 0) {
			t.Fatalf("submission %d: ok %v, err %v", i, b.ok, b.err)
		}
	}
	type job struct {
		N        int        `db:"n"`
		Tags     string     `db:"tags"`
		Batch    *string    `db:"batch_id"`
		Priority int        `db:"priority"`
		Created  *uuid.UUID `db:"created_by"`
		Expires  time.Time  `db:"expires_at"`
		Usage    int        `db:"usage"`
	}
	for _, i := range []int{0, 2} {
		var j job
		if err := db.Get(&j, `SELECT (input ->> 'n')::int AS n, tags::text AS tags, batch_id, priority, created_by, expires_at,
			(SELECT count(*) FROM usage_records u WHERE u.job_id = jobs.id AND u.product_id = $2) AS usage
			FROM jobs WHERE id = $1 AND app_id = $3 AND status = 'SCHEDULED'`, batch[i].out.Id, credits.JobSubmissionProduct, rich.App.ID); err != nil {
			t.Fatalf("job of submission %d (id %d): %v", i, batch[i].out.Id, err)
		}
		if j.N != i || j.Usage != 1 || j.Created == nil || *j.Created != richP.UserID || !batch[i].out.ExpiresAt.Equal(j.Expires) {
			t.Fatalf("submission %d written as %+v, answered %+v", i, j, batch[i].out)
		}
		if i == 0 && (j.Tags != "{x,y}" || j.Batch == nil || *j.Batch != "b-1" || j.Priority != 5 ||
			d(j.Expires.Sub(time.Now().Add(time.Minute))) > 10*time.Second) {
			t.Fatalf("first job %+v", j)
		}
		if i == 2 && (j.Priority != 9 || !j.Expires.Equal(deadline)) {
			t.Fatalf("third job %+v, deadline %v", j, deadline)
		}
	}
	for _, c := range []struct {
		org        uuid.UUID
		app        uuid.UUID
		jobs, paid int64
	}{{rich.App.OrganizationID, rich.App.ID, 2, 2}, {poor.App.OrganizationID, poor.App.ID, 0, 0}} {
		b, err := credits.Get(context.Background(), db, c.org)
		var counted, jobs int64
		if err == nil {
			err = db.Get(&counted, `SELECT coalesce(sum(n), 0) FROM job_counters WHERE app_id = $1 AND status = 'SCHEDULED'`, c.app)
		}
		if err == nil {
			err = db.Get(&jobs, `SELECT count(*) FROM jobs WHERE app_id = $1`, c.app)
		}
		if err != nil || b.Consumed != c.paid || counted != c.jobs || jobs != c.jobs {
			t.Fatalf("organization %s: consumed %d, counted %d, jobs %d (%v); want %d paid and %d jobs", c.org, b.Consumed, counted, jobs, err, c.paid, c.jobs)
		}
	}
}

// TestBatchRefusedAnswersEachAlone: a row the database refuses fails its batch's statement; each
// submission is then written alone, so the others are written once and the bad one gets its error.
func TestBatchRefusedAnswersEachAlone(t *testing.T) {
	t.Parallel()
	db := testdb.DB(t)
	g, p := batchFixture(t, db, 100_000)
	ghost := &auth.Principal{Role: auth.RoleOrgAdmin, Credential: auth.CredentialJWT, UserID: uuid.New(), OrganizationID: p.OrganizationID}
	batch := []*paid{waiting(g, p, 0, nil), waiting(g, ghost, 1, nil), waiting(g, p, 2, nil)}
	writePaid(db, batch)
	if !batch[0].ok || !batch[2].ok || batch[0].err != nil || batch[2].err != nil || batch[1].err == nil {
		t.Fatalf("answers: %v %v / %v %v / %v %v", batch[0].ok, batch[0].err, batch[1].ok, batch[1].err, batch[2].ok, batch[2].err)
	}
	var ns []int
	if err := db.Select(&ns, `SELECT (input ->> 'n')::int FROM jobs WHERE app_id = $1 ORDER BY id`, g.App.ID); err != nil {
		t.Fatal(err)
	}
	b, _ := credits.Get(context.Background(), db, g.App.OrganizationID)
	if len(ns) != 2 || ns[0] != 0 || ns[1] != 2 || b.Consumed != 2 {
		t.Fatalf("jobs written %v, consumed %d; want [0 2] and 2", ns, b.Consumed)
	}
}

func d(x time.Duration) time.Duration { return max(x, -x) }
