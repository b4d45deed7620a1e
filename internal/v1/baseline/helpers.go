package baseline

import (
	"encoding/json"

	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/auth"
)

func encode(input, response map[string]any) (string, string, error) {
	in, err := json.Marshal(input)
	if err != nil {
		return "", "", err
	}
	resp, err := json.Marshal(response)
	return string(in), string(resp), err
}

// actor is the username a record shows as its creator; null for an API key.
func actor(p *auth.Principal) *string {
	if p.Credential == auth.CredentialAPIKey || p.Email == "" {
		return nil
	}
	e := p.Email
	return &e
}

func textArray(v []string) any {
	if v == nil {
		v = []string{}
	}
	return pq.StringArray(v)
}
