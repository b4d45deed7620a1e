package testkit

import "time"

// AwayFromMinuteBoundary waits, when the wall clock is within the last 10 seconds of a minute, until
// the next minute has begun. Rate limits count in fixed windows aligned to the minute; a test that
// makes a few attempts and expects the last one refused must not straddle two windows.
func AwayFromMinuteBoundary() {
	now := time.Now()
	if now.Second() >= 50 {
		time.Sleep(now.Truncate(time.Minute).Add(time.Minute + 100*time.Millisecond).Sub(now))
	}
}
