package server

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
)

type notImplemented interface{ NotImplementedOperation() string }

// pending calls every operation of impl with a zero request and nil services: an operation no service
// provides answers NotImplementedError at once; one a service provides touches its service and panics
// or answers otherwise. Nothing else runs.
func pending(impl any, ops []string) (out []string) {
	v := reflect.ValueOf(impl)
	for _, name := range ops {
		m := v.MethodByName(name)
		req := reflect.New(m.Type().In(1)).Elem()
		func() {
			defer func() { _ = recover() }()
			res := m.Call([]reflect.Value{reflect.ValueOf(context.Background()), req})
			var ni notImplemented
			if err, ok := res[1].Interface().(error); ok && errors.As(err, &ni) {
				out = append(out, name)
			}
		}()
	}
	return out
}

// TestPendingOperations lists the operations that still answer 501 not_implemented. The list shrinks
// as capabilities land; the foundation's own operations must never be on it.
func TestPendingOperations(t *testing.T) {
	apiPending := pending(platform{}, platformapi.Operations)
	v1Pending := pending(v1{}, v1api.Operations)
	t.Logf("/api: %d of %d operations answer 501 not_implemented: %v", len(apiPending), len(platformapi.Operations), apiPending)
	t.Logf("/v1: %d of %d operations answer 501 not_implemented: %v", len(v1Pending), len(v1api.Operations), v1Pending)
	done := map[string]bool{}
	for _, op := range apiPending {
		done[op] = true
	}
	for _, op := range []string{"GetRoot", "GetLiveness", "GetReadiness", "GetDetailedHealth", "GetSwaggerUi", "GetRedoc",
		"GetOpenApiDocument", "GetV1SwaggerDocument", "GetV1OpenApiDocument"} {
		if done[op] {
			t.Errorf("%s must be implemented", op)
		}
	}
}
