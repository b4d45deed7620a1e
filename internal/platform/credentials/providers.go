package credentials

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/loopwork/loopwork/gen/platformapi"
)

// provider is one entry of the catalog: what its secret looks like and which credential types it
// accepts. Schemas close their objects (additionalProperties false) so that a misspelt field is a 422
// instead of a secret that silently lacks what a task will look for. They use neither pattern, enum nor
// const, whose failure messages would quote the value, and a value here is a secret.
type provider struct {
	name    platformapi.ProviderApiEnum
	isOAuth bool
	types   []platformapi.CredentialTypeEnum
	schema  map[string]any
	// compiled is schema compiled once at start; the catalog is fixed, so a schema that does not compile
	// is a programming error found by the first test.
	compiled *jsonschema.Schema
}

func str(desc string) map[string]any {
	return map[string]any{"type": "string", "minLength": 1, "description": desc}
}

func object(required []string, anyOf []any, props map[string]any) map[string]any {
	s := map[string]any{"type": "object", "additionalProperties": false, "properties": props, "required": required}
	if anyOf != nil {
		s["anyOf"] = anyOf
	}
	return s
}

func needs(fields ...string) map[string]any { return map[string]any{"required": fields} }

var port = map[string]any{"type": "integer", "minimum": 1, "maximum": 65535, "description": "The port."}

// catalog is every provider, in ProviderApiEnum order (the order listCredentialProviders promises).
var catalog = []*provider{
	{name: "vendor_a", isOAuth: true, types: []platformapi.CredentialTypeEnum{"oauth2", "vendor_a_receive"},
		schema: object([]string{"access_token"}, nil, map[string]any{
			"access_token": str("The OAuth access token."), "refresh_token": str("The OAuth refresh token."),
			"expires_at": map[string]any{"type": "string", "format": "date-time", "description": "When the access token expires."},
			"scope":      str("The scopes granted."),
		})},
	{name: "sftp", types: []platformapi.CredentialTypeEnum{"user_password", "key_file"},
		schema: object([]string{"host", "username"}, []any{needs("password"), needs("private_key")}, map[string]any{
			"host": str("The SFTP server's host name."), "port": port, "username": str("The user name."),
			"password": str("The password (or a private_key)."), "private_key": str("A PEM private key (or a password)."),
			"passphrase": str("The private key's passphrase."),
			"host_key": str("The server's public host key as an authorized_keys line (`ssh-ed25519 AAAA…`); when set, " +
				"connections to a server presenting another key are refused, when absent any key is accepted."),
		})},
	{name: "email_service", types: []platformapi.CredentialTypeEnum{"api_key", "user_password"},
		schema: object([]string{}, []any{needs("api_key"), needs("username", "password")}, map[string]any{
			"api_key": str("The service's API key (or username and password)."), "host": str("The SMTP host."),
			"port": port, "username": str("The user name."), "password": str("The password."),
		})},
	{name: "vendor_b", types: []platformapi.CredentialTypeEnum{"api_key", "vendor_b_receive"},
		schema: object([]string{"api_key"}, nil, map[string]any{"api_key": str("The API key.")})},
	{name: "sql_database", types: []platformapi.CredentialTypeEnum{"user_password"},
		schema: object([]string{"host", "database", "username", "password"}, nil, map[string]any{
			"host": str("The database server's host name."), "port": port, "database": str("The database name."),
			"username": str("The user name."), "password": str("The password."),
			"sslmode":           str("The PostgreSQL sslmode (disable, require, verify-full …)."),
			"connection_string": str("A full postgres:// URL with further options; when set it is used to connect, and it names the same host and port."),
		})},
	// The organization's own tables are reached with the server's connection and the organization's
	// role, so this credential carries no secret of its own: data is {}.
	{name: "internal_sql_database", types: []platformapi.CredentialTypeEnum{"user_password"},
		schema: object([]string{}, nil, map[string]any{})},
	{name: "file_storage", types: []platformapi.CredentialTypeEnum{"api_key", "key_file"},
		schema: object([]string{"access_key_id", "secret_access_key"}, nil, map[string]any{
			"access_key_id": str("The access key id."), "secret_access_key": str("The secret access key."),
			"endpoint": str("The S3-compatible endpoint URL."), "region": str("The region."), "bucket": str("The bucket."),
		})},
	{name: "vendor_a_client_secret", types: []platformapi.CredentialTypeEnum{"client_credentials"},
		schema: object([]string{"client_id", "client_secret"}, nil, map[string]any{
			"client_id": str("The client id."), "client_secret": str("The client secret."),
			"tenant_id": str("The tenant id."), "scope": str("The scopes to request."),
		})},
}

var byName = map[platformapi.ProviderApiEnum]*provider{}

func init() {
	for _, p := range catalog {
		p.compiled = compile(string(p.name), p.schema)
		byName[p.name] = p
	}
}

// compile goes through JSON because the compiler accepts only what encoding/json produces.
func compile(name string, schema map[string]any) *jsonschema.Schema {
	raw, err := json.Marshal(schema)
	if err != nil {
		panic(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		panic(err)
	}
	url := "mem://loopwork/credentials/" + name + ".json"
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(url, doc); err != nil {
		panic(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		panic(fmt.Sprintf("credentials: schema of %s: %v", name, err))
	}
	return s
}

// response is the provider as listCredentialProviders shows it. The accepted credential types ride
// along as x-credential-types, an annotation a validator ignores, because the contract's provider entry
// has no field of its own for them and a client needs them to fill credential_type.
func (p *provider) response() platformapi.CredentialProvider {
	s := make(map[string]any, len(p.schema)+1)
	for k, v := range p.schema {
		s[k] = v
	}
	s["x-credential-types"] = p.types
	return platformapi.CredentialProvider{Name: string(p.name), IsOauth: p.isOAuth, CredentialSchema: s}
}

// Provider answers a provider's catalog entry (as listCredentialProviders shows it) by name.
func Provider(name string) (platformapi.CredentialProvider, bool) {
	p, ok := byName[platformapi.ProviderApiEnum(name)]
	if !ok {
		return platformapi.CredentialProvider{}, false
	}
	return p.response(), true
}
