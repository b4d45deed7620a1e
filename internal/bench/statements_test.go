package bench_test

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/jmoiron/sqlx"
)

// statements reads pg_stat_statements for the bench's database, when the cluster loads it (make soak
// starts one with shared_preload_libraries=pg_stat_statements); otherwise it says so once and reads
// nothing.
type statements struct {
	b  *testing.B
	db *sqlx.DB
	ok bool
}

type statement struct {
	Query   string  `db:"query"`
	Calls   int64   `db:"calls"`
	TotalMs float64 `db:"total_exec_time"`
}

func newStatements(b *testing.B, db *sqlx.DB) *statements {
	s := &statements{b: b, db: db}
	if _, err := db.Exec(`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`); err != nil {
		report(b, "soak statements", "pg_stat_statements is not installed: %v", err)
		return s
	}
	var n int
	if err := db.Get(&n, `SELECT count(*) FROM pg_stat_statements LIMIT 1`); err != nil {
		report(b, "soak statements", "pg_stat_statements is not loaded (shared_preload_libraries): %v", err)
		return s
	}
	s.ok = true
	return s
}

func (s *statements) reset() {
	if !s.ok {
		return
	}
	if _, err := s.db.Exec(`SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = current_database()), 0)`); err != nil {
		report(s.b, "soak statements", "reset: %v", err)
	}
}

// read is every statement's figures so far, by queryid.
func (s *statements) read() map[int64]statement {
	if !s.ok {
		return nil
	}
	var rows []struct {
		ID int64 `db:"queryid"`
		statement
	}
	if err := s.db.Select(&rows, `SELECT queryid, left(regexp_replace(query, '\s+', ' ', 'g'), 110) AS query, calls, total_exec_time
		FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`); err != nil {
		report(s.b, "soak statements", "read: %v", err)
		return nil
	}
	m := make(map[int64]statement, len(rows))
	for _, r := range rows {
		m[r.ID] = r.statement
	}
	return m
}

// calls is how many statements ran between two readings.
func calls(before, after map[int64]statement) int64 {
	var n int64
	for id, a := range after {
		n += a.Calls - before[id].Calls
	}
	return n
}

// dbTime is the database's time, in ms, in the statements that ran between two readings.
func dbTime(before, after map[int64]statement) float64 {
	var ms float64
	for id, a := range after {
		ms += a.TotalMs - before[id].TotalMs
	}
	return ms
}

// perTask reports statements and database time per unit of work (n of them), when they were read.
func perTask(b testing.TB, what string, stmts int64, ms float64, n int64) {
	if stmts > 0 && n > 0 {
		report(b, what+"statements and database time a task", "%.1f statements, %.2f ms", float64(stmts)/float64(n), ms/float64(n))
	}
}

// report prints the ten statements that took most of the time between two readings.
func (s *statements) report(what string, before, after map[int64]statement) {
	if !s.ok {
		return
	}
	var diff []statement
	var total float64
	for id, a := range after {
		p := before[id]
		d := statement{Query: a.Query, Calls: a.Calls - p.Calls, TotalMs: a.TotalMs - p.TotalMs}
		if d.Calls > 0 {
			diff = append(diff, d)
			total += d.TotalMs
		}
	}
	slices.SortFunc(diff, func(x, y statement) int { return cmp.Compare(y.TotalMs, x.TotalMs) })
	report(s.b, what, "%.0f ms in %d statements; the ten that took most:", total, len(diff))
	for _, d := range diff[:min(10, len(diff))] {
		fmt.Fprintf(os.Stdout, "    %8.0f ms %4.1f%% %8d calls %7.2f ms  %s\n", d.TotalMs, 100*d.TotalMs/max(total, 1), d.Calls,
			d.TotalMs/float64(d.Calls), d.Query)
	}
}
