package netguard

import "testing"

func TestDomainAllowed(t *testing.T) {
	t.Parallel()
	cases := []struct {
		patterns []string
		host     string
		want     bool
	}{
		{[]string{"*"}, "anything.example", true},
		{[]string{"api.example.com"}, "API.Example.com.", true},
		{[]string{"api.example.com"}, "api.example.com:8443", true},
		{[]string{"api.example.com"}, "evil.example.com", false},
		{[]string{"api.example.com"}, "api.example.com.evil.net", false},
		{[]string{"*.example.com"}, "a.b.example.com", true},
		{[]string{"*.example.com"}, "example.com", false},
		{[]string{"*.example.com"}, "badexample.com", false},
		{[]string{"127.0.0.1"}, "127.0.0.1:5432", true},
		{[]string{}, "api.example.com", false},
		{nil, "api.example.com", false},
		{[]string{"*"}, "", false},
	}
	for _, c := range cases {
		if got := DomainAllowed(c.patterns, c.host); got != c.want {
			t.Errorf("DomainAllowed(%q, %q) = %v, want %v", c.patterns, c.host, got, c.want)
		}
	}
}
