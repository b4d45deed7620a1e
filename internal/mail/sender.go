package mail

import (
	"log/slog"

	"github.com/loopwork/loopwork/internal/config"
)

// NewSender returns the SMTP sender when SMTP is configured, otherwise the log sender.
func NewSender(cfg config.Config, logger *slog.Logger) (Sender, error) {
	if cfg.SMTPHost == "" {
		return LogSender{Logger: logger}, nil
	}
	return NewSMTPSender(SMTPConfig{
		Host: cfg.SMTPHost, Port: cfg.SMTPPort, Username: cfg.SMTPUsername, Password: cfg.SMTPPassword,
		From: cfg.SMTPFrom, TLS: cfg.SMTPTLS,
	})
}
