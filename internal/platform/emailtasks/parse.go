package emailtasks

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"strings"
	"unicode/utf8"
)

// message is what the listener makes of a received e-mail.
type message struct {
	MessageID   string
	From        string
	To          []string
	Subject     string
	Text, HTML  string
	Attachments []attachment
}

type attachment struct {
	Filename    string
	ContentType string
	Data        []byte
}

const (
	maxBodyText    = 1 << 20 // text and html kept in the input, each
	maxAttachments = 50
	maxDepth       = 8
)

var words = &mime.WordDecoder{CharsetReader: func(charset string, r io.Reader) (io.Reader, error) {
	b, err := io.ReadAll(r)
	return strings.NewReader(toUTF8(b, charset)), err
}}

// parse reads an RFC 5322 message with MIME parts: the first text/plain and text/html parts are the
// text and html, and parts with a file name or an attachment disposition are the attachments.
func parse(raw []byte) (message, error) {
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return message{}, err
	}
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
	walk(&out, h.Get("Content-Type"), h.Get("Content-Transfer-Encoding"), h.Get("Content-Disposition"), m.Body, 0)
	return out, nil
}

func walk(out *message, ctype, encoding, disposition string, body io.Reader, depth int) {
	media, params, err := mime.ParseMediaType(ctype)
	if err != nil {
		media, params = "text/plain", map[string]string{}
	}
	if strings.HasPrefix(media, "multipart/") && depth < maxDepth {
		r := multipart.NewReader(body, params["boundary"])
		for {
			p, err := r.NextRawPart()
			if err != nil {
				return
			}
			walk(out, p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p.Header.Get("Content-Disposition"), p, depth+1)
		}
	}
	data, _ := io.ReadAll(decode(body, encoding))
	disp, dparams, _ := mime.ParseMediaType(disposition)
	name := dparams["filename"]
	if name == "" {
		name = params["name"]
	}
	if name, err = words.DecodeHeader(name); err != nil {
		name = "attachment"
	}
	switch {
	case disp == "attachment" || name != "":
		if len(out.Attachments) < maxAttachments {
			if name == "" {
				name = "attachment"
			}
			out.Attachments = append(out.Attachments, attachment{Filename: name, ContentType: media, Data: data})
		}
	case media == "text/plain" && out.Text == "":
		out.Text = clip(toUTF8(data, params["charset"]))
	case media == "text/html" && out.HTML == "":
		out.HTML = clip(toUTF8(data, params["charset"]))
	}
}

func decode(r io.Reader, encoding string) io.Reader {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "base64":
		return base64.NewDecoder(base64.StdEncoding, r)
	case "quoted-printable":
		return quotedprintable.NewReader(r)
	}
	return r
}

// toUTF8 reads text in its charset: UTF-8 and ASCII as they are; anything else that is not valid
// UTF-8 as Latin-1, whose bytes are the first 256 code points.
func toUTF8(b []byte, charset string) string {
	if utf8.Valid(b) {
		return string(b)
	}
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

func clip(s string) string {
	s = strings.ReplaceAll(s, "\x00", "") // jsonb holds no NUL character
	if len(s) <= maxBodyText {
		return s
	}
	cut := maxBodyText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
