package emailtasks

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"hash"
	"io"
	"mime"
	"net/mail"
	"sort"
	"strings"
)

// message is what the listener makes of a received e-mail. Its attachments are not in it: they are
// handed to a sink as they are read, so a message is never held in memory whole.
type message struct {
	MessageID  string
	From       string
	To         []string
	Subject    string
	Text, HTML string
	// Digest is the SHA-256 of the message without its trace header fields (see digestHeader); two
	// deliveries with the same Message-ID are the same message only when their digests match too.
	Digest []byte
}

// sink stores the attachment numbered n (from 1) as it is read from body.
type sink func(n int, filename, contentType string, body io.Reader) error

const (
	maxBodyText    = 1 << 20 // text and html kept in the input, each
	maxHeaderBytes = 1 << 20 // the message's own header section
	maxAttachments = 50
	maxDepth       = 8
)

// errHeaderTooLarge refuses a message whose header section alone passes maxHeaderBytes.
var errHeaderTooLarge = errors.New("the message header is larger than 1 MiB")

var words = &mime.WordDecoder{CharsetReader: func(charset string, r io.Reader) (io.Reader, error) {
	b, err := io.ReadAll(r)
	return strings.NewReader(toUTF8(b, charset)), err
}}

// read reads an RFC 5322 message with MIME parts from r, once and in order: the first text/plain and
// text/html parts (up to maxBodyText each) are the text and html, and parts with a file name or an
// attachment disposition go to store as they are read. It reads r to its end. An error of r itself
// (the message is too large, the connection broke) is returned as it is.
func read(r io.Reader, store sink) (message, error) {
	limited := &headerLimit{r: r, left: maxHeaderBytes}
	m, err := mail.ReadMessage(bufio.NewReader(limited))
	if err != nil {
		return message{}, err
	}
	limited.left = -1
	h := m.Header
	out := message{MessageID: strings.Trim(h.Get("Message-Id"), "<> ")}
	if s, err := words.DecodeHeader(h.Get("Subject")); err == nil {
		out.Subject = s
	} else {
		out.Subject = h.Get("Subject")
	}
	if a, err := mail.ParseAddress(h.Get("From")); err == nil {
		out.From = a.Address
	} else {
		out.From = h.Get("From")
	}
	if list, err := h.AddressList("To"); err == nil {
		for _, a := range list {
			out.To = append(out.To, a.Address)
		}
	}
	sum := sha256.New()
	digestHeader(sum, h)
	body := io.TeeReader(m.Body, sum)
	w := walker{out: &out, store: store}
	if err := w.walk(h.Get("Content-Type"), h.Get("Content-Transfer-Encoding"), h.Get("Content-Disposition"), body, 0); err != nil {
		return out, err
	}
	// What the parts left (an epilogue, parts past the limits) still counts for the digest.
	if _, err := io.Copy(io.Discard, body); err != nil {
		return out, err
	}
	out.Digest = sum.Sum(nil)
	return out, nil
}

// traceFields are the header fields relays add on the way; a sender that delivers a message again
// through another path changes them and nothing else, so they are left out of the digest.
var traceFields = map[string]bool{"Received": true, "Return-Path": true, "Delivered-To": true, "X-Original-To": true}

// digestHeader writes the header fields other than traceFields to sum in a fixed order.
func digestHeader(sum hash.Hash, h mail.Header) {
	keys := make([]string, 0, len(h))
	for k := range h {
		if !traceFields[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range h[k] {
			io.WriteString(sum, k+": "+v+"\r\n")
		}
	}
	io.WriteString(sum, "\r\n")
}

// headerLimit fails reads past left bytes while left is not negative.
type headerLimit struct {
	r    io.Reader
	left int64
}

func (l *headerLimit) Read(p []byte) (int, error) {
	if l.left < 0 {
		return l.r.Read(p)
	}
	if l.left == 0 {
		return 0, errHeaderTooLarge
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}
