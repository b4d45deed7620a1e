package jobs

import (
	"sync"

	"github.com/google/uuid"
)

// versionCache holds, by flow, the version of it that /v1 jobs ran last. It saves a submission that is
// started with others the read of its flow's version (executions.JobVersion), which the batch's
// statement checks instead (see insertStartedBatch).
type versionCache struct{ m sync.Map }

// Load is the version cached for flow.
func (c *versionCache) Load(flow uuid.UUID) (int, bool) {
	v, ok := c.m.Load(flow)
	if !ok {
		return 0, false
	}
	return v.(int), true
}

// Store caches version for flow.
func (c *versionCache) Store(flow uuid.UUID, version int) { c.m.Store(flow, version) }

// Delete forgets flow's version.
func (c *versionCache) Delete(flow uuid.UUID) { c.m.Delete(flow) }
