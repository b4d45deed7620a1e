package bench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/bench"
	"github.com/loopwork/loopwork/internal/engine/dsl"
	"github.com/loopwork/loopwork/internal/engine/tasks"
	"github.com/loopwork/loopwork/internal/testkit"
)

// BenchmarkFlows runs the flows scenario of the performance goals once (use -benchtime=1x): validating
// a 10,000-task definition, creating and reading it back through HTTP, and a list page of 50 among
// 100,000 flows, each beside the same work done by PostgreSQL alone.
func BenchmarkFlows(b *testing.B) {
	ctx := context.Background()
	env := serverEnv(b)
	org := env.Org(b)
	admin := env.KeyCaller(b, org, auth.RoleOrgAdmin)
	user := env.KeyCaller(b, org, auth.RoleAppUser)
	// The large flows belong to an organization of their own, so that the list pages measured later
	// hold the small flows a list usually shows.
	builder := env.KeyCaller(b, env.Org(b), auth.RoleOrgAdmin)
	transport := &http.Transport{MaxIdleConns: 64, MaxIdleConnsPerHost: 64, IdleConnTimeout: time.Minute}
	c := client{t: b, http: &http.Client{Transport: transport}, base: env.URL, token: builder.Token}

	def := bench.Definition(10000)
	raw, _ := json.Marshal(def)
	reg := tasks.Builtin()
	took := timeEach(5, func() {
		if r := dsl.Validate(def, reg); len(r.Errors) != 0 || len(r.Order) != 10000 {
			b.Fatalf("the benchmark definition has %d problems: %+v", len(r.Errors), r.Errors[0])
		}
	})
	report(b, "validate + order 10,000 tasks, 19,993 edges (median of 5)", "%.1f ms", bench.Ms(took))

	var id string
	// The body is encoded once, as a client holding the JSON text would send it.
	createBody := []byte(`{"display_name": "large", "definition": ` + string(raw) + `}`)
	create := timeEach(5, func() {
		st, body, err := c.do("POST", "/api/flows", createBody)
		if err != nil || st != http.StatusCreated {
			b.Fatalf("create: %d %v %.300s", st, err, body)
		}
		var f struct{ ID string }
		_ = json.Unmarshal(body, &f)
		id = f.ID
	})
	read := timeEach(5, func() {
		if st, body, err := c.do("GET", "/api/flows/"+id, nil); err != nil || st != http.StatusOK {
			b.Fatalf("read: %d %v %.300s", st, err, body)
		}
	})
	insert := timeEach(5, func() {
		if _, err := env.DB.ExecContext(ctx, `INSERT INTO flow_versions (flow_id, version, organization_id, display_name, definition)
			SELECT $1, latest_version + 1000 + (SELECT count(*) FROM flow_versions WHERE flow_id = $1), organization_id, 'x', $2
			FROM flows WHERE id = $1`, id, string(raw)); err != nil {
			b.Fatal(err)
		}
	})
	report(b, fmt.Sprintf("create a 10,000-task flow (%.1f MB) over HTTP (median of 5)", float64(len(raw))/1e6), "%.1f ms", bench.Ms(create))
	report(b, "read it back over HTTP (median of 5)", "%.1f ms", bench.Ms(read))
	report(b, "baseline: INSERT of the same definition in SQL (median of 5)", "%.1f ms", bench.Ms(insert))

	seeded, err := bench.SeedFlows(ctx, env.DB, org, admin.UserID, 100000)
	if err != nil {
		b.Fatal(err)
	}
	report(b, "seed 100,000 flows (SQL, for setup)", "%.1f s", seeded.Seconds())
	c.token = admin.Token
	for _, who := range []struct {
		name  string
		token string
	}{{"org_admin", admin.Token}, {"app_user (private flows filtered)", user.Token}} {
		cc := c
		cc.token = who.token
		get := cc.expect(http.StatusOK)
		for _, n := range []int{1, clients} {
			r := measure(n, 5*time.Second, func(int) error { return get("GET", "/api/flows?limit=50", nil) })
			reportLoad(b, fmt.Sprintf("flow list page of 50 of 100,000, %s, %d clients", who.name, n), r)
		}
	}
	// The statements a list page of an org_admin runs, in SQL alone: the total, the page, its versions.
	page := fmt.Sprintf(`SELECT coalesce(sum(n), 0) FROM flow_counts WHERE organization_id = '%[1]s';
SELECT f.id FROM flows f WHERE f.deleted_at IS NULL AND f.organization_id = '%[1]s' ORDER BY f.updated_at DESC, f.id DESC LIMIT 50;
SELECT * FROM flow_versions WHERE (flow_id, version) IN (SELECT id, latest_version FROM flows
  WHERE organization_id = '%[1]s' AND deleted_at IS NULL ORDER BY updated_at DESC, id DESC LIMIT 50);
`, org)
	for _, n := range []int{1, clients} {
		tps := pgbenchScript(b, testkit.DSN(b, env.DB), page, n, 5*time.Second)
		report(b, fmt.Sprintf("baseline: the page's statements in pgbench, %d clients", n), "%.0f pages/s (%.2f ms a page)", tps, float64(n)*1000/tps)
	}
}

// timeEach runs f n times and returns the median duration.
func timeEach(n int, f func()) time.Duration {
	d := make([]time.Duration, n)
	for i := range d {
		start := time.Now()
		f()
		d[i] = time.Since(start)
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[n/2]
}
