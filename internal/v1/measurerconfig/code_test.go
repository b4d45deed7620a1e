package measurerconfig

import "testing"

// TestNewCodeFitsJavaScript keeps onboarding codes within the integers a JavaScript client can send
// back unchanged: a code above 2^53−1 would be rounded and then refused as invalid.
func TestNewCodeFitsJavaScript(t *testing.T) {
	t.Parallel()
	var high int
	for range 10000 {
		code, err := newCode()
		if err != nil {
			t.Fatal(err)
		}
		if code < 1 || code > 9007199254740991 {
			t.Fatalf("code %d is outside [1, 2^53−1]", code)
		}
		if code > 1<<52 {
			high++
		}
	}
	// Half the codes fall in the upper half of the range when all 53 bits are random.
	if high < 4500 || high > 5500 {
		t.Errorf("%d of 10000 codes above 2^52, want about 5000", high)
	}
}
