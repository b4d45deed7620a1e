package tasks

// The built-in task types that call out of the server: http_request and llm.

func httpRequestType() Type {
	return Type{
		Name: "http_request",
		Description: "Calls an HTTP endpoint and returns its status, headers and body. Private, loopback and " +
			"link-local targets are refused unless the server allows them. Every request carries an " +
			"Idempotency-Key header (unless headers set one) that names the attempt: a repeated delivery of the " +
			"same attempt sends the same key, a retry after a failed attempt a new one. Statuses 2xx and 3xx " +
			"(redirects are followed, up to 5) complete the task; 408, 429 and 5xx fail the attempt and are " +
			"retried per the task's retry policy; any other status fails the task without retry. A response " +
			"body larger than 10 MiB fails the task, as does a refused target.",
		Parameters: object("Parameters of an http_request task.", m{
			"url": with(str("Absolute http or https URL to call; a template, for example "+
				"`https://api.example.com/invoices/{{ $tasks.extract.json.number }}`."),
				"format", "uri", "pattern", "^[hH][tT][tT][pP][sS]?://", "maxLength", 8192),
			"method": with(str("HTTP method."),
				"enum", []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"}, "default", "GET"),
			"headers": stringMap("Request headers, name to value (an Authorization header included); the values are " +
				"templates."),
			"query": stringMap("Query string parameters, name to value; added to those already in url; the values are " +
				"templates."),
			"body": anyValue("Request body. A string is sent as it is (set Content-Type in headers); any other " +
				"value is sent as JSON with Content-Type application/json. Ignored for GET and HEAD. Omitted for " +
				"POST, PUT and PATCH, the task's input is sent as JSON." + valueTemplateNote),
			"timeout_seconds": with(seconds("Seconds to wait for the whole response before the attempt fails "+
				"(and is retried per the task's retry policy); the task's own timeout still applies.", 600),
				"default", 30),
			"credential_id": uuidString("Id of one of the organization's credentials; its secret authenticates the " +
				"request: a credential with an api_key as a bearer token (Authorization: Bearer), one with a username " +
				"and password as basic auth. An Authorization header set in headers wins. A credential of another " +
				"kind fails the task. The user saving the flow must be allowed to use the credential (its creator, an " +
				"org_admin, or anyone once it is shared with the organization), or the flow is not saved; each attempt " +
				"checks that right again for the user who saved the version run. The credential is attached only to " +
				"requests (and redirects) to hosts of its allowed_domains; a redirect elsewhere is followed without it."),
		}, "url"),
		Output: output("The response.", m{
			"status":  integer("HTTP status code."),
			"headers": stringMap("Response headers; repeated headers are joined with \", \"."),
			"body": anyValue("Response body, at most 10 MiB: parsed JSON when the Content-Type is application/json " +
				"or ends in +json and the body parses, the text otherwise (an empty body is \"\")."),
		}, "status", "headers", "body"),
		Templates:      []string{"url", "headers", "query", "body"},
		Dynamic:        credentialsOptions,
		CredentialRefs: []CredentialRef{{Param: "credential_id"}},
	}
}

func llmType() Type {
	return Type{
		Name: "llm",
		Description: "Prompts a language model and returns its answer, as text and, with output_schema, as JSON. " +
			"Each call is recorded as usage of the product llm-call (one credit) with its token counts. The built-in " +
			"model loopwork-builtin runs offline and answers from the prompt's input, never its instruction (the " +
			"system message, and a leading paragraph or line that ends with ':' or opens with a verb such as " +
			"Extract, Classify or Summarise; JSON in the prompt is input). Asked for JSON, it fills each property with " +
			"the value after its label in the input (`Vendor: …`, `\"total\": …`, or a synonym: supplier, amount due, " +
			"invoice no …), else with the only value of its kind there (an e-mail address, phone number, URL, date, " +
			"sum of money, invoice or order number), typed as the schema says, with dates as YYYY-MM-DD where the " +
			"property has format date or is named a date; an enum by its words or simple cues in the input; a " +
			"property not found is null where allowed, else its type's zero value. A confidence property is the " +
			"mean over the others of 1 for a labelled value, 0.8 for the only value of its kind, 0.5 for a pick " +
			"among several and 0 for a missing one. Without output_schema it answers with the input's first " +
			"sentences when asked to summarise, else with the input shortened: it cannot translate, rewrite or reason.",
		Parameters: object("Parameters of an llm task.", m{
			"prompt": with(str("The user message sent to the model."+templateNote),
				"minLength", 1, "maxLength", 200000),
			"model": with(str("Name of a configured model; omitted means the server's default model."),
				"minLength", 1),
			"system": with(str("System message, instructions that frame the prompt."+templateNote),
				"maxLength", 200000),
			"temperature": with(number("Sampling temperature; lower is more deterministic."),
				"minimum", 0, "maximum", 2),
			"max_tokens": with(integer("Upper bound of tokens in the answer."), "minimum", 1),
			"output_schema": m{"type": "object", "description": "A JSON schema the answer must follow; the " +
				"parsed answer is then in the output's `json`, and an answer that does not follow it fails the attempt. " +
				"It may refer only inside itself: a `$ref` that does not start with `#` (a file, a URL, another " +
				"schema's id) is refused when the flow is saved."},
			"credential_id": uuidString("Id of an api_key credential of the organization whose key is sent to the " +
				"model's endpoint instead of the server's own; the user saving the flow must be allowed to use it."),
		}, "prompt"),
		Output: output("The model's answer.", m{
			"text":  str("The answer as text."),
			"json":  anyValue("The answer parsed as JSON; present only with output_schema."),
			"model": str("The model that answered."),
			"usage": output("Tokens used.", m{
				"input_tokens":  integer("Tokens in the prompt."),
				"output_tokens": integer("Tokens in the answer."),
			}),
		}, "text", "model", "usage"),
		Templates:      []string{"prompt", "system"},
		Schemas:        []string{"output_schema"},
		Dynamic:        modelOptions,
		CredentialRefs: []CredentialRef{{Param: "credential_id"}},
	}
}
