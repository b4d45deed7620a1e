package emailtasks

import (
	"context"
	"errors"
	"io"

	"github.com/emersion/go-smtp"
)

// counter counts the bytes of a message as they are read and keeps the first error of the reader
// itself (the size limit, a broken connection), which the parser would otherwise take for the end of a
// part.
type counter struct {
	r   io.Reader
	n   int64
	err error
}

func (c *counter) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil && err != io.EOF {
		c.err = err
	}
	return n, err
}

// storeError is a failure to store an attachment, as opposed to a message that does not parse.
type storeError struct{ err error }

func (e *storeError) Error() string { return e.err.Error() }
func (e *storeError) Unwrap() error { return e.err }

var errHeaderRefused = &smtp.SMTPError{Code: 552, EnhancedCode: smtp.EnhancedCode{5, 3, 4}, Message: errHeaderTooLarge.Error()}

// refusal is the SMTP answer to a message that could not be read whole: the reader's own answer when
// it has one (552 for a message over the size limit), 552 for an oversized header, 451 when storage
// failed or the connection broke (the sender tries again), 554 for what is not an e-mail message.
func (s *Service) refusal(t row, readErr, err error) error {
	var se *smtp.SMTPError
	var store *storeError
	switch {
	case errors.As(readErr, &se):
		return se
	case errors.Is(err, errHeaderTooLarge):
		return errHeaderRefused
	case readErr != nil:
		return errTryLater
	case errors.As(err, &store):
		s.d.Logger.Error("inbound e-mail attachment not stored", "email_task", t.ID, "error", err)
		return errTryLater
	}
	return &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 6, 0}, Message: "not an e-mail message: " + err.Error()}
}

// discard deletes attachments stored for a delivery that is not recorded.
func (s *Service) discard(ctx context.Context, t row, atts []storedAttachment) {
	for _, a := range atts {
		_ = s.d.Files.Delete(context.WithoutCancel(ctx), s.attachmentKey(t, a))
	}
}
