//go:build tools

// Package tools pins the versions of the code generators `make generate` runs, through go.mod.
package tools

import (
	_ "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen"
)
