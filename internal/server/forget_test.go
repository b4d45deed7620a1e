package server

import (
	"strings"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
)

// TestKeepsAccessNamesOperations: every operation the list exempts exists in a contract, so a renamed
// operation cannot silently drop out of it.
func TestKeepsAccessNamesOperations(t *testing.T) {
	known := map[string]bool{}
	for _, op := range append(append([]string{}, v1api.Operations...), platformapi.Operations...) {
		known[strings.ToLower(op)] = true
	}
	for id := range keepsAccess {
		if !known[strings.ToLower(id)] {
			t.Errorf("keepsAccess names %q, which no contract has", id)
		}
	}
}
