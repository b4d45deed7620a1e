package pgdsn

import (
	"errors"
	"testing"
)

func TestParseURLAllowList(t *testing.T) {
	t.Parallel()
	p, err := ParseURL("postgresql://ann:s%40cret@DB.example.com:6543/sales?sslmode=verify-full&connect_timeout=5&application_name=x")
	if err != nil {
		t.Fatal(err)
	}
	want := Params{Host: "DB.example.com", Port: 6543, DBName: "sales", User: "ann", Password: "s@cret",
		SSLMode: "verify-full", ConnectTimeout: 5, ApplicationName: "x"}
	if p != want {
		t.Fatalf("%+v", p)
	}
	if c := p.Config(); c.SSLRootCert != "system" || c.Passfile != nowhere || c.SSLKey != nowhere || c.SSLCert != nowhere {
		t.Fatalf("config reads files: %+v", c)
	}
	if c := (Params{Host: "h", User: "u"}).Config(); c.SSLRootCert != nowhere || c.SSLMode != "prefer" || c.ConnectTimeout == 0 {
		t.Fatalf("defaults: %+v", c)
	}
	for cs, param := range map[string]string{
		"postgres://u@h/d?passfile=/x":                     "passfile",
		"postgres://u@h/d?service=s":                       "service",
		"postgres://u@h/d?sslcert=/x":                      "sslcert",
		"postgres://u@h/d?sslkey=/x":                       "sslkey",
		"postgres://u@h/d?sslrootcert=/x":                  "sslrootcert",
		"postgres://u@h/d?sslpassword=x":                   "sslpassword",
		"postgres://u@h/d?options=-c%20x%3Dy":              "options",
		"postgres://u@h/d?hostaddr=10.0.0.1":               "hostaddr",
		"postgres://u@h/d?host=/tmp":                       "host",
		"postgres://u@h/d?host=@abstract":                  "host",
		"postgres://u@h1,h2/d":                             "host",
		"postgres://u@/d":                                  "host",
		"postgres://h/d":                                   "user",
		"postgres://u@h:0/d":                               "port",
		"postgres://u@h/d?sslmode=pqgo-custom":             "sslmode",
		"postgres://u@h/d?connect_timeout=3600":            "connect_timeout",
		"postgres://u@h/d?sslmode=require&sslmode=disable": "sslmode",
		"host=h user=u passfile=/x":                        "connection_string",
		"mysql://u@h/d":                                    "connection_string",
	} {
		_, err := ParseURL(cs)
		var pe *Error
		if !errors.As(err, &pe) || pe.Param != param {
			t.Errorf("%s: %v, want a refusal of %s", cs, err, param)
		}
	}
}
