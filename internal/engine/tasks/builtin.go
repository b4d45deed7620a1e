package tasks

// The built-in task types. Every parameter carries a description: the agent shows these schemas to a language
// model, and the flows service shows them to people editing a flow.

const inputNote = " It runs on the task's input: the output of its predecessor, an object keyed by predecessor name " +
	"when it has several, or the execution's input when it has none; `$input` is the execution's input and " +
	"`$tasks.<name>` the output of a completed task upstream."

const templateNote = " `{{ expr }}` segments are replaced by the result of the jq expression expr run on the task's " +
	"input, with `$input` and `$tasks.<name>` as in every expression (strings as they are, other values as JSON); " +
	"an expression ends at the first `}}`."

// valueTemplateNote is templateNote for parameters whose strings may sit in objects and arrays.
const valueTemplateNote = " Every string in it is a template: `{{ expr }}` segments are replaced by the result of " +
	"the jq expression expr run on the task's input, with `$input` and `$tasks.<name>` (strings as they are, other " +
	"values as JSON), and a string that is one `{{ expr }}` and nothing else becomes the expression's value, of " +
	"its own type: `{\"total\": \"{{ $tasks.extract.json.total }}\"}` sends a number."

func builtinTypes() []Type {
	return []Type{
		transformType(), conditionType(), httpRequestType(), llmType(), humanReviewType(),
		sqlQueryType(), emailType(), delayType(), externalType(),
	}
}

func transformType() Type {
	return Type{
		Name:        "transform",
		Description: "Reshapes data with a jq expression; the first result of the expression is the task's output.",
		Parameters: object("Parameters of a transform task.", m{
			"expression": with(str("A jq expression (gojq dialect), for example `{total: (.items | map(.price) | add)}`."+inputNote),
				"minLength", 1),
		}, "expression"),
		Output:   anyValue("The first result of the expression, any JSON value."),
		JQFields: []string{"expression"},
	}
}

func conditionType() Type {
	return Type{
		Name: "condition",
		Description: "Evaluates a jq expression to true or false and passes its input on unchanged, as its output, to " +
			"the branch the result chose: an outgoing edge follows the result its `branch` names (true when omitted), " +
			"so `{\"source\": \"check\", \"target\": \"review\", \"branch\": false}` runs review when the " +
			"expression is false. The result is recorded on the attempt (`detail.result`). A result that is not a " +
			"boolean fails the task.",
		Parameters: object("Parameters of a condition task.", m{
			"expression": with(str("A jq expression that yields a boolean, for example `.score > 0.8`."+inputNote),
				"minLength", 1),
		}, "expression"),
		Output:   anyValue("The task's input, passed on unchanged; the result is the attempt's detail, {\"result\": true|false}."),
		JQFields: []string{"expression"},
	}
}

func humanReviewType() Type {
	return Type{
		Name: "human_review",
		Description: "Creates a human review task and puts the execution in awaiting_input until the review " +
			"completes; the reviewed (possibly corrected) output, with review_result, is the task's output and " +
			"continues the flow. The review completes when required_approvals assigned users approved " +
			"(review_result true), or at the first rejection (review_result false): the task then completes " +
			"all the same, so outgoing edges can branch on `.review_result`. An administrator's completion " +
			"decides alone. A review still open at its timeout ends as on_timeout says.",
		Parameters: object("Parameters of a human_review task.", m{
			"instructions": with(str("What the reviewer should check, in Markdown."), "maxLength", 10000),
			"assigned_users": with(arrayOf("Ids of the users who review: active users of the organization "+
				"with a reviewer role (not integration). Omitted or empty means the users invited to the "+
				"flow and its creator, when they have such a role.", uuidString("A user id.")),
				"uniqueItems", true, "maxItems", 100),
			"review_of": with(str("Name of the task whose output is reviewed (its latest completed attempt); "+
				"omitted means the task's own input: its predecessor's output, an object keyed by "+
				"predecessor name when it has several, or the execution's input when it has none."),
				"minLength", 1, "maxLength", 200),
			"required_approvals": with(integer("How many of the assigned users must approve before the review "+
				"completes as approved; more than are assigned fails the task. One rejection completes it "+
				"as rejected whatever this says."), "minimum", 1, "maximum", 100, "default", 1),
			"timeout_seconds": with(integer("Seconds the review may stay open; omitted means no limit. This is "+
				"the review's own limit: the task's timeout_seconds does not run while it waits for people."),
				"minimum", 1, "maximum", month),
			"on_timeout": with(str("What an expired review does: `approve` completes it as approved and "+
				"`reject` as rejected (both with the reviewed content as it was, and no completed_by), "+
				"`fail` fails the task, and so the execution, without retry."),
				"enum", []string{"approve", "reject", "fail"}, "default", "fail"),
		}),
		Output: with(output("The reviewed output: the fields of the reviewed object as the reviewer left "+
			"them (a reviewed value that is not an object is under `value`), plus review_result.", m{
			"review_result": boolean("True when the output was approved as it was, false when a reviewer " +
				"rejected or corrected it."),
		}, "review_result"), "additionalProperties", true),
		TaskRefs: []string{"review_of"},
	}
}

func sqlQueryType() Type {
	return Type{
		Name: "sql_query",
		Description: "Runs exactly one SQL statement (a text of several fails the task, saying so) on one of the " +
			"organization's registered SQL databases (PostgreSQL protocol, reached through the SSRF guard) or on its " +
			"document files (database_id a document's id or an internal_sql_database credential: every document's " +
			"current table by its table name, in the organization's own database, as its own role, in a read-only " +
			"transaction that is always rolled back) with its parameters bound to the placeholders, within the task's " +
			"timeout and the server's statement timeout (30 s by default, whichever is shorter). A statement that reads " +
			"(SELECT, WITH, VALUES, SHOW, TABLE) returns its rows, at most max_rows and at most the server's ceiling " +
			"(10000 rows by default), each an object by column name (numerics and text as strings, times in RFC 3339); any other " +
			"returns the rows it affected. Rows larger than 256 KB as JSON are stored as a file instead, named by " +
			"rows_uri (resolve it with POST /api/storage/resolve), and rows is then empty. A retry runs the statement " +
			"again, so writes should be idempotent; an error of the statement fails the task without retry.",
		Parameters: object("Parameters of a sql_query task.", m{
			"database_id": uuidString("Id of one of the organization's SQL databases, internal_sql_database credentials or " +
				"document files. A SQL database or credential must be one the user saving the flow may use (its creator, " +
				"an org_admin, or anyone once it is shared with the organization)."),
			"query": with(str("One SQL statement; use placeholders ($1, $2, … or ? depending on the database) "+
				"for values, never string concatenation."), "minLength", 1, "maxLength", 100000),
			"parameters": arrayOf("Values bound to the placeholders, in order.",
				m{"type": []string{"string", "number", "integer", "boolean", "null"}}),
			"max_rows": with(integer("Rows returned at most (and at most the server's ceiling); further rows are dropped."),
				"minimum", 1, "maximum", 100000, "default", 1000),
		}, "database_id", "query"),
		Output: output("The result of the statement.", m{
			"rows":      arrayOf("The rows, each an object keyed by column name.", m{"type": "object"}),
			"row_count": integer("Rows returned, or rows affected for statements that return none."),
			"rows_uri":  str("The storage URI of the rows as a JSON array, when they were too large for the output."),
		}, "rows", "row_count"),
		Dynamic:        sqlDatabaseOptions,
		CredentialRefs: []CredentialRef{{Param: "database_id", OrDocument: true}},
	}
}

func emailType() Type {
	addresses := func(desc string) m {
		return with(arrayOf(desc, m{"type": "string", "format": "email"}), "maxItems", 50)
	}
	return Type{
		Name: "email",
		Description: "Sends an e-mail from the server's configured sender address. The mail is queued in the " +
			"server's outbox when the task completes, once per attempt even if the attempt is recorded twice, " +
			"and delivered from there (delivery is retried by the outbox, not by the task).",
		Parameters: object("Parameters of an email task.", m{
			"to":      with(addresses("Recipients."), "minItems", 1),
			"cc":      addresses("Copy recipients."),
			"bcc":     addresses("Blind copy recipients."),
			"subject": with(str("Subject line."+templateNote), "minLength", 1, "maxLength", 998),
			"body":    with(str("Message body."+templateNote), "maxLength", 1000000),
			"content_type": with(str("Whether body is plain text or HTML."),
				"enum", []string{"text", "html"}, "default", "text"),
		}, "to", "subject", "body"),
		Output: output("The sent message.", m{
			"message_id": str("The Message-ID header of the message, with its angle brackets; it stays the same " +
				"on every delivery attempt."),
		}, "message_id"),
		Templates: []string{"subject", "body"},
	}
}

func delayType() Type {
	return Type{
		Name: "delay",
		Description: "Waits a number of seconds without holding a worker, then passes its input on unchanged as its " +
			"output; what it waited is recorded on the attempt (`detail.waited_seconds`).",
		Parameters: object("Parameters of a delay task.", m{
			"seconds": seconds("Seconds to wait, at most 30 days.", month),
		}, "seconds"),
		Output: anyValue("The task's input, passed on unchanged; the attempt's detail is {\"waited_seconds\": n}."),
	}
}

func externalType() Type {
	return Type{
		Name: "external",
		Description: "Work done by an outside worker, which claims it and reports its output through the " +
			"task-executions routes.",
		Parameters: object("Parameters of an external task.", m{
			"queue": with(str("Name of the queue workers claim from; omitted means the default queue."),
				"pattern", "^[A-Za-z0-9_.:-]{1,200}$"),
			"payload": anyValue("Data handed to the worker along with the task's input."),
		}),
		Output: anyValue("Whatever the worker reports, any JSON value."),
	}
}
