package config

import (
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"time"
)

type field struct {
	env, def string
	set      func(string) error
}

// fields lists the settings of c in declaration order with setters bound to c, driven by the struct tags
// so that a new setting is one struct field and nothing else.
func fields(c *Config) []field {
	v := reflect.ValueOf(c).Elem()
	t := v.Type()
	out := make([]field, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		sf, fv := t.Field(i), v.Field(i)
		env := sf.Tag.Get("env")
		if env == "" {
			continue
		}
		out = append(out, field{env: env, def: sf.Tag.Get("default"), set: setter(fv)})
	}
	return out
}

func setter(fv reflect.Value) func(string) error {
	return func(raw string) error {
		switch fv.Interface().(type) {
		case string:
			fv.SetString(raw)
		case bool:
			b, err := strconv.ParseBool(raw)
			if err != nil {
				return fmt.Errorf("must be true or false")
			}
			fv.SetBool(b)
		case int:
			n, err := strconv.Atoi(raw)
			if err != nil {
				return fmt.Errorf("must be a whole number")
			}
			fv.SetInt(int64(n))
		case float64:
			f, err := strconv.ParseFloat(raw, 64)
			if err != nil {
				return fmt.Errorf("must be a number")
			}
			fv.SetFloat(f)
		case time.Duration:
			d, err := time.ParseDuration(raw)
			if err != nil {
				return fmt.Errorf("must be a duration such as 30s or 5m")
			}
			fv.SetInt(int64(d))
		default:
			return fmt.Errorf("unsupported setting type %s", fv.Type())
		}
		return nil
	}
}

// Settings lists every setting with its default, for `loopwork config`.
func Settings() []Setting {
	var c Config
	t := reflect.TypeOf(c)
	out := make([]Setting, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if env := sf.Tag.Get("env"); env != "" {
			out = append(out, Setting{Env: env, Default: sf.Tag.Get("default")})
		}
	}
	return out
}

// Lookup returns the effective value of a setting as text; secrets in URLs are masked.
func (c Config) Lookup(env string) string {
	v := reflect.ValueOf(c)
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).Tag.Get("env") != env {
			continue
		}
		s := fmt.Sprint(v.Field(i).Interface())
		if t.Field(i).Tag.Get("secret") == "true" && s != "" {
			return "(set)"
		}
		if u, err := url.Parse(s); err == nil && u.User != nil {
			if _, has := u.User.Password(); has {
				u.User = url.UserPassword(u.User.Username(), "xxxxx")
				s = u.String()
			}
		}
		return s
	}
	return ""
}
