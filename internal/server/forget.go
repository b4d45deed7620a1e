package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/loopwork/loopwork/internal/memo"
)

// keepsAccess are the writes that never change a row memoised principals or grants come from (users,
// organizations, API keys, sessions, apps, app memberships): the job writes and the credit ledger's,
// which are the busy ones, the flows area's, task statuses and tags, the task executions workers report
// and claim, and human review.
// Leaving an operation out of this list is always safe; it only makes its calls forget the memos.
var keepsAccess = map[string]bool{
	"submitJob": true, "deleteJob": true, "submitJobFeedback": true, "submitJobResponse": true,
	"addJobTags": true, "removeJobTags": true, "cancelJobs": true, "deleteJobs": true,
	"createAppTag": true, "updateAppTag": true, "deleteAppTag": true,
	"recordUsage": true, "grantCredits": true,
	"createFlow": true, "updateFlow": true, "modifyFlow": true, "updateFlowDefinition": true, "deleteFlow": true,
	"createFlowView": true, "updateFlowView": true, "deleteFlowView": true,
	"inviteFlowUsers": true, "revokeFlowInvitation": true,
	"startFlowExecution": true, "deleteFlowExecution": true, "stopFlowExecution": true,
	"addTaskStatuses": true, "batchPatchTaskTags": true,
	"recordTaskExecution": true, "claimTaskExecution": true,
	"createHumanReviewTask": true, "startHumanReviewTask": true, "completeHumanReviewTask": true,
}

// forgetOnWrite makes every other write forget the memoised principals and grants before its response
// is written, so the caller's next request, on this replica, sees the change even before the
// database's notification of it arrives. (Other replicas forget on the notification.)
func forgetOnWrite(bus *memo.Bus, operationID func(method, path string) string) func(method, path string) echo.MiddlewareFunc {
	return func(method, path string) echo.MiddlewareFunc {
		switch method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			return passThrough
		}
		if keepsAccess[operationID(method, path)] {
			return passThrough
		}
		return func(next echo.HandlerFunc) echo.HandlerFunc {
			return func(c echo.Context) error {
				c.Response().Before(bus.Invalidate)
				err := next(c)
				bus.Invalidate() // also when the handler failed before writing anything
				return err
			}
		}
	}
}

func passThrough(next echo.HandlerFunc) echo.HandlerFunc { return next }
