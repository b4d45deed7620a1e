// Package buildinfo carries the build's version, set by the Makefile through -ldflags.
package buildinfo

import "time"

// Version is the git description of the build ("dev" when built without the Makefile).
var Version = "dev"

// Started is when this process started, for uptime in health reports.
var Started = time.Now()
