package auth_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/internal/auth"
)

func TestCheckPassword(t *testing.T) {
	t.Parallel()
	const email = "ada.lovelace@example.com"
	for _, tc := range []struct {
		password string
		ok       bool
	}{
		{"correct horse battery staple", true},
		{"Tr0ub4dor&3", true},
		{"àéîõü çñß", true}, // characters, not bytes: nine of them
		{"short1!", false},
		{strings.Repeat("x", 129), false},
		{"PassWord123", false},
		{"abababababab", false},
		{"ada.lovelace@example.com", false},
		{"I am ada.lovelace!", false},
		{"xx" + strings.ToUpper("ada.lovelace") + "xx", false},
	} {
		err := auth.CheckPassword(tc.password, email)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, auth.ErrWeakPassword)) {
			t.Errorf("%q: %v, want ok=%v", tc.password, err, tc.ok)
		}
	}
	// A short local part is not a word to avoid: "al@…" would refuse every password with "al" in it.
	if err := auth.CheckPassword("always walk alone", "al@example.com"); err != nil {
		t.Errorf("short local part: %v", err)
	}
}
