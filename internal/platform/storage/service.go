// Package storage implements the storage routes of the /api interface: the download route that the
// server's own signed links point to (when files are on local disk), and links to stored objects.
package storage

import (
	"github.com/loopwork/loopwork/internal/blob"
)

// Deps are what the service needs.
type Deps struct {
	Files blob.Store
	// Signer checks the tokens of links to local files; nil when the store signs its own links (S3).
	Signer *blob.Signer
}

// Service implements the storage operations of platformapi.StrictServerInterface.
type Service struct{ d Deps }

// New returns the service.
func New(d Deps) *Service { return &Service{d: d} }
