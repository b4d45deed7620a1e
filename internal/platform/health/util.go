package health

import (
	"context"
	"errors"
	"time"

	"github.com/loopwork/loopwork/gen/platformapi"
)

var errPending = errors.New("migrations are pending: run `loopwork migrate up`")

// publicReason says why a check failed without leaking host names or credentials from driver errors.
func publicReason(ctx context.Context, err error) string {
	switch {
	case errors.Is(err, errPending):
		return err.Error()
	case ctx.Err() != nil:
		return "did not answer in time"
	}
	return "failed: " + errClass(err)
}

func errClass(err error) string {
	var t interface{ Timeout() bool }
	if errors.As(err, &t) && t.Timeout() {
		return "timeout"
	}
	return "unreachable or refused the query"
}

func allHealthy(checks []platformapi.HealthCheckDetail) bool {
	for _, c := range checks {
		if !c.Healthy {
			return false
		}
	}
	return true
}

func firstFailure(checks []platformapi.HealthCheckDetail) string {
	for _, c := range checks {
		if !c.Healthy {
			return c.Name + " " + c.Details
		}
	}
	return ""
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
