package run

// inNames bounds col, a task_name column, to the span of the names in the text[] placeholder arr, for
// statements that find an execution's rows by a list of task names.
//
// The rows are found by (flow_execution_id, task_name), the leading columns of both tables' keys. But
// while the statistics do not yet know an execution (a new one, until autovacuum analyzes the table),
// the planner reckons it has about one row, and may scan all of the execution's rows by its id and
// match the names as a filter: every step of a 2,000-task chain read 2,000 rows, and its steps were
// slow until the table was analyzed. A range of the names is always used in the index condition, so
// the scan reads the rows named (one, for a chain), whatever the plan's order of the join.
func inNames(col, arr string) string {
	return ` AND ` + col + ` BETWEEN (SELECT min(v) FROM unnest(` + arr + `::text[]) v) AND (SELECT max(v) FROM unnest(` + arr + `::text[]) v)`
}
