package integrations

import (
	"slices"
	"sort"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/platform/credentials"
)

// catalogSpace names catalog ids: an entry's id is derived from its name, so it is the same on every
// server and in every release that keeps the name.
var catalogSpace = uuid.MustParse("6f3c7a52-4a8e-4c55-9a0b-6b1f6a0c2e11")

type entry struct {
	category    platformapi.IntegrationCategory
	provider    string // a ProviderApiEnum value, or "loopwork"
	name        string
	display     string
	description string
	types       []platformapi.CredentialTypeEnum
	providers   []string
}

type ct = platformapi.CredentialTypeEnum

// taskEntries are the built-in task types, one entry for each type of tasks.Builtin (a test holds the
// two together): the registry declares a type, the catalog only how it is shown.
var taskEntries = []entry{
	{"automation", "loopwork", "http_request", "HTTP request", "Calls an HTTP endpoint; private targets are refused unless the server allows them.", nil, nil},
	{"automation", "loopwork", "transform", "Transform", "Reshapes data with a jq expression.", nil, nil},
	{"automation", "loopwork", "condition", "Condition", "Branches on a jq expression that yields a boolean.", nil, nil},
	{"automation", "loopwork", "delay", "Delay", "Waits for a number of seconds, durably.", nil, nil},
	{"automation", "loopwork", "external", "External worker", "Work done by an outside worker that claims tasks and reports their outcome.", nil, nil},
	{"human_in_the_loop", "loopwork", "human_review", "Human review", "Waits for a person to approve, reject or correct a task's output.", nil, nil},
	{"agent_in_the_loop", "loopwork", "llm", "Language model", "Prompts a language model with a template over the task input, optionally for JSON of a schema.", nil, nil},
	{"database", "sql_database", "sql_query", "SQL query", "Runs a parameterised SQL query against a registered PostgreSQL database or the organization's document tables.",
		[]ct{"user_password"}, []string{"sql_database", "internal_sql_database"}},
	{"messaging", "email_service", "email", "Send e-mail", "Sends an e-mail through the server's mail service or your own.",
		[]ct{"api_key", "user_password"}, []string{"email_service"}},
}

// serviceEntries are what tasks reach through credentials, and the inbound e-mail address that starts
// executions; none of them is a task type.
var serviceEntries = []entry{
	{"database", "sql_database", "sql_database", "PostgreSQL database", "A PostgreSQL database of yours, reached with a user name and password.",
		[]ct{"user_password"}, []string{"sql_database"}},
	{"database", "internal_sql_database", "internal_sql_database", "Document tables", "The organization's imported documents, as tables of its own database.",
		[]ct{"user_password"}, []string{"internal_sql_database"}},
	{"messaging", "email_service", "email_inbound", "Receive e-mail", "Starts a flow execution for every message sent to a task's own address.",
		nil, nil},
	{"messaging", "vendor_a", "vendor_a", "Vendor A", "Vendor A's API, authorised with OAuth 2.0.",
		[]ct{"oauth2", "vendor_a_receive"}, []string{"vendor_a"}},
	{"messaging", "vendor_a_client_secret", "vendor_a_client_secret", "Vendor A (service)", "Vendor A's API with client credentials.",
		[]ct{"client_credentials"}, []string{"vendor_a_client_secret"}},
	{"messaging", "vendor_b", "vendor_b", "Vendor B", "Vendor B's API, with an API key.",
		[]ct{"api_key", "vendor_b_receive"}, []string{"vendor_b"}},
	{"storage", "file_storage", "file_storage", "S3-compatible storage", "A bucket of an S3-compatible service.",
		[]ct{"api_key", "key_file"}, []string{"file_storage"}},
	{"storage", "sftp", "sftp", "SFTP", "Files on an SFTP server.",
		[]ct{"user_password", "key_file"}, []string{"sftp"}},
}

// entries is the catalog.
var entries = append(slices.Clone(taskEntries), serviceEntries...)

// sorted is the catalog in the order the list promises: by category, then name.
var sorted = func() []entry {
	out := append([]entry(nil), entries...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].category != out[j].category {
			return out[i].category < out[j].category
		}
		return out[i].name < out[j].name
	})
	return out
}()

func (e entry) id() uuid.UUID { return uuid.NewSHA1(catalogSpace, []byte(e.name)) }

func (e entry) response() platformapi.IntegrationCatalogResponse {
	types := e.types
	if types == nil {
		types = []ct{}
	}
	out := platformapi.IntegrationCatalogResponse{Id: e.id(), Category: e.category, Provider: e.provider,
		Name: e.name, Description: e.description, CredentialTypes: types}
	if e.display != "" {
		d := e.display
		out.DisplayName = &d
	}
	plugin := false
	out.IsPlugin = &plugin
	if e.providers != nil {
		ps := make([]platformapi.CredentialProvider, 0, len(e.providers))
		for _, name := range e.providers {
			if p, ok := credentials.Provider(name); ok {
				ps = append(ps, p)
			}
		}
		out.CredentialProviders = &ps
	}
	return out
}
