package emailtasks

import (
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"strings"
	"unicode/utf8"
)

// walker reads the MIME tree of one message as a stream.
type walker struct {
	out   *message
	store sink
	n     int // attachments handed to store
}

// walk reads one part; a multipart part's children are read in turn. What a part does not use is left
// unread: the multipart reader skips it on the way to the next part.
func (w *walker) walk(ctype, encoding, disposition string, body io.Reader, depth int) error {
	media, params, err := mime.ParseMediaType(ctype)
	if err != nil {
		media, params = "text/plain", map[string]string{}
	}
	if strings.HasPrefix(media, "multipart/") && depth < maxDepth {
		r := multipart.NewReader(body, params["boundary"])
		for {
			p, err := r.NextRawPart()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				// A part that does not parse ends the tree; the reader's own errors still show when the
				// rest of the message is read.
				return nil
			}
			if err := w.walk(p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p.Header.Get("Content-Disposition"), p, depth+1); err != nil {
				return err
			}
		}
	}
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
		if w.n >= maxAttachments {
			return nil
		}
		if name == "" {
			name = "attachment"
		}
		w.n++
		return w.store(w.n, name, media, decode(body, encoding))
	case media == "text/plain" && w.out.Text == "":
		w.out.Text = clip(toUTF8(readText(decode(body, encoding)), params["charset"]))
	case media == "text/html" && w.out.HTML == "":
		w.out.HTML = clip(toUTF8(readText(decode(body, encoding)), params["charset"]))
	}
	return nil
}

// readText reads at most what clip keeps; the rest of the part is not read into memory. A UTF-8
// character cut in two at the end is dropped, so the text still reads as UTF-8.
func readText(r io.Reader) []byte {
	b, _ := io.ReadAll(io.LimitReader(r, maxBodyText+1))
	if len(b) <= maxBodyText {
		return b
	}
	b = b[:maxBodyText]
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				b = b[:i]
			}
			break
		}
	}
	return b
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
