package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestOptionalBodiesMayBeOmitted sends every operation whose contract says its body is optional with no
// body at all, with and without a Content-Type: none may be refused for its body (the validator and
// the generated handlers both take an empty body as none).
func TestOptionalBodiesMayBeOmitted(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	staff := env.User(t, env.Org(t), auth.RoleBackoffice)
	var optional []string
	for _, o := range operations(t) {
		if rb := o.op.RequestBody; rb == nil || rb.Value == nil || rb.Value.Required {
			continue
		}
		optional = append(optional, o.id)
		params := append(append(openapi3.Parameters{}, o.item.Parameters...), o.op.Parameters...)
		for _, contentType := range []string{"", "application/json"} {
			req, err := http.NewRequest(strings.ToUpper(o.method), env.URL+fillPath(o.path, params), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(sampleQuery(params, "")) > 0 {
				req.URL.RawQuery = sampleQuery(params, "").Encode()
			}
			if contentType != "" {
				req.Header.Set("Content-Type", contentType)
			}
			req.Header.Set("Authorization", "Bearer "+staff.Token)
			res, err := env.HTTP.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			_, _ = io.Copy(&text, res.Body)
			res.Body.Close()
			refused := res.StatusCode == http.StatusUnsupportedMediaType || res.StatusCode >= 500 ||
				((res.StatusCode == http.StatusBadRequest || res.StatusCode == http.StatusUnprocessableEntity) && namesIt([]byte(text.String()), []any{"body"}))
			if refused {
				t.Errorf("%s %s (%s) without a body, Content-Type %q: %d %s", o.method, o.path, o.id, contentType, res.StatusCode, text.String())
			}
		}
	}
	t.Logf("operations with an optional body: %v", optional)
	if len(optional) == 0 {
		t.Fatal("no operation has an optional body; cloneApp should")
	}
}
