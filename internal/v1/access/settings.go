package access

import "encoding/json"

// Settings are an app's processing and labeling settings with the contract's defaults applied.
type Settings struct {
	DefaultPriority     int      `json:"default_priority"`
	LabelingEnabled     bool     `json:"labeling_enabled"`
	LabelingLockMinutes int      `json:"labeling_lock_minutes"`
	ReviewRate          float64  `json:"review_rate"`
	AutoCompleteScore   *float64 `json:"auto_complete_score"`
	// MaxRunningJobs bounds the jobs with an execution under way; nil: no bound.
	MaxRunningJobs *int `json:"max_running_jobs"`
}

// DefaultSettings are what an app has before anyone sets anything.
func DefaultSettings() Settings {
	return Settings{DefaultPriority: 5, LabelingEnabled: true, LabelingLockMinutes: 30}
}

// ParseSettings reads stored settings over the defaults; fields never set keep their default.
func ParseSettings(raw json.RawMessage) Settings {
	s := DefaultSettings()
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &s) // stored settings were validated when written
	}
	return s
}

// Settings of the app.
func (a App) ParsedSettings() Settings { return ParseSettings(a.Settings) }
