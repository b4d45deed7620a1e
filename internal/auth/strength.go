package auth

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// Password length limits, in characters. The upper one keeps the hashing cost of a request bounded.
const (
	PasswordMinLength = 8
	PasswordMaxLength = 128
)

// PasswordRule is the rule as people choosing a password read it; CheckPassword enforces exactly this.
const PasswordRule = "Use 8 to 128 characters. A few unrelated words make a password that is long and easy to " +
	"remember. A password found in lists of common passwords, one made of fewer than 5 different characters, " +
	"or one that contains your e-mail address is refused."

// ErrWeakPassword is the error CheckPassword wraps; its message says what to change.
var ErrWeakPassword = errors.New("weak password")

type weakPassword struct{ reason string }

func (w weakPassword) Error() string { return w.reason }
func (w weakPassword) Unwrap() error { return ErrWeakPassword }

// CheckPassword applies PasswordRule to a password chosen by the owner of email. It follows NIST
// SP 800-63B: a length floor, a block list of passwords attackers try first, and no composition rules
// (forced digits and symbols make passwords harder to remember, not harder to guess).
func CheckPassword(password, email string) error {
	n := utf8.RuneCountInString(password)
	switch {
	case n < PasswordMinLength:
		return weakPassword{"the password is shorter than 8 characters"}
	case n > PasswordMaxLength:
		return weakPassword{"the password is longer than 128 characters"}
	}
	distinct := map[rune]bool{}
	for _, r := range password {
		distinct[r] = true
	}
	if len(distinct) < 5 {
		return weakPassword{"the password is made of fewer than 5 different characters"}
	}
	lower := strings.ToLower(password)
	if commonPasswords[lower] {
		return weakPassword{"the password is in lists of common passwords"}
	}
	email = strings.ToLower(strings.TrimSpace(email))
	if local, _, _ := strings.Cut(email, "@"); email != "" && (strings.Contains(lower, email) ||
		(utf8.RuneCountInString(local) >= 4 && strings.Contains(lower, local))) {
		return weakPassword{"the password contains the e-mail address"}
	}
	return nil
}

// commonPasswords are the most frequent passwords of 8 characters or more in published breach corpora,
// lower-cased; longer lists belong in a breach-checking service, which this server does not call.
var commonPasswords = func() map[string]bool {
	m := map[string]bool{}
	for _, p := range strings.Fields(`
		password password1 password12 password123 password1234 passw0rd p@ssw0rd p@ssword pa$$word
		12345678 123456789 1234567890 0123456789 87654321 987654321 12341234 11223344 12121212 123123123
		qwertyui qwertyuiop qwerty123 qwerty1234 1q2w3e4r 1q2w3e4r5t 1qaz2wsx zaq12wsx asdfghjk asdfghjkl
		zxcvbnm1 iloveyou iloveyou1 sunshine sunshine1 princess princess1 football football1 baseball
		superman trustno1 whatever starwars dragon12 michael1 jennifer computer internet letmein1
		welcome1 welcome123 changeme changeme1 administrator admin123 admin1234 abcd1234 abc12345
		abcdefgh abcdefg1 aa123456 a1b2c3d4 mustang1 shadow12 master12 monkey12 charlie1 jordan23
		loveyou1 freedom1 basketball liverpool chocolate butterfly passport secret123 test1234
		testtest loopwork loopwork1 loopwork123`) {
		m[p] = true
	}
	return m
}()
