package bulk_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/loopwork/loopwork/gen/v1api"
)

// BenchmarkJobTags100k adds a tag to, then removes it from, every job of an app of 100,000 jobs;
// each operation is one request and one statement. Compare with the same UPDATE run by hand (see
// the package's report) rather than with an absolute time: the machines are shared.
func BenchmarkJobTags100k(b *testing.B) {
	f := newFixture(b)
	ctx := context.Background()
	f.seed(b, f.app, 100000, "SCHEDULED")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		add, err := f.admin.V1.AddJobTagsWithResponse(ctx, f.app, &v1api.AddJobTagsParams{}, v1api.JobTags{Tags: []string{"bench"}})
		if err != nil || add.StatusCode() != http.StatusNoContent {
			b.Fatalf("add: %v %v", err, add.Status())
		}
		rm, err := f.admin.V1.RemoveJobTagsWithResponse(ctx, f.app, &v1api.RemoveJobTagsParams{}, v1api.JobTags{Tags: []string{"bench"}})
		if err != nil || rm.StatusCode() != http.StatusNoContent {
			b.Fatalf("remove: %v %v", err, rm.Status())
		}
	}
}

// BenchmarkCancel100k cancels the 100,000 jobs of an app through the background operation, from the
// request to the operation's end.
func BenchmarkCancel100k(b *testing.B) {
	f := newFixture(b)
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		f.seed(b, f.app, 100000, "SCHEDULED")
		b.StartTimer()
		res, err := f.admin.V1.CancelJobsWithResponse(ctx, f.app, &v1api.CancelJobsParams{})
		if err != nil || res.StatusCode() != http.StatusAccepted {
			b.Fatalf("cancel: %v %v", err, res.Status())
		}
		f.wait(b, f.admin, f.app, *res.JSON202.OperationId)
	}
}
