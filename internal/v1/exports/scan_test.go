package exports

import (
	"testing"
	"time"

	"github.com/lib/pq"
)

// TestTimestampReadsWhatLibPqReads: the reader's own parse of a UTC session's timestamps agrees with
// lib/pq's for every length of fraction, and hands other forms (and malformed ones) to it.
func TestTimestampReadsWhatLibPqReads(t *testing.T) {
	for _, s := range []string{
		"2026-12-05 20:00:00+00", "2026-12-05 20:00:00.1+00", "2026-12-05 20:00:00.12+00", "2026-12-05 20:00:00.123+00",
		"2026-12-05 20:00:00.1234+00", "2026-12-05 20:00:00.12345+00", "2026-12-05 20:00:00.123456+00",
		"0001-01-01 00:00:00+00", "2000-02-29 23:59:59.999999+00", "10000-01-01 00:00:00+00", "0044-03-15 12:00:00+00 BC",
		"2026-12-05 20:00:00+05:30", "2026-12-05 2x:00:00+00", "2026-12-05 20:00:00.+00", "2026-12-05 20:00:00.1234567+00",
	} {
		want, wantErr := pq.ParseTimestamp(time.UTC, s)
		got, err := timestamp([]byte(s))
		if (err != nil) != (wantErr != nil) || !got.Equal(want) {
			t.Errorf("%s: got %s (%v), lib/pq %s (%v)", s, got, err, want, wantErr)
		}
	}
}
