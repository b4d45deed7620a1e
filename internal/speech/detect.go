package speech

import (
	"bytes"
	"mime"
	"path/filepath"
	"strings"
)

// Format is an accepted audio container or stream format.
type Format string

// The accepted formats.
const (
	MP3  Format = "mp3"
	WAV  Format = "wav"
	M4A  Format = "m4a"
	OGG  Format = "ogg"
	FLAC Format = "flac"
	AAC  Format = "aac"
	OPUS Format = "opus"
	WebM Format = "webm"
)

// HeadSize is how much of a file Detect needs to see.
const HeadSize = 4096

// Detect names the format of a recording from its first bytes. The name and content type are hints
// only for what the bytes leave open (an Ogg stream is told apart by its first packet, and an MP3
// without an ID3 tag by its frame header); bytes of no accepted format are refused whatever the name
// says.
func Detect(head []byte, filename, contentType string) (Format, bool) {
	switch {
	case len(head) >= 12 && bytes.Equal(head[:4], []byte("RIFF")) && bytes.Equal(head[8:12], []byte("WAVE")):
		return WAV, true
	case bytes.HasPrefix(head, []byte("fLaC")):
		return FLAC, true
	case bytes.HasPrefix(head, []byte("OggS")):
		if bytes.Contains(head, []byte("OpusHead")) {
			return OPUS, true
		}
		return OGG, true
	case bytes.HasPrefix(head, []byte{0x1A, 0x45, 0xDF, 0xA3}):
		// EBML: WebM (Matroska with the webm doctype) is what browsers record.
		if bytes.Contains(head, []byte("webm")) || hint(filename, contentType) == WebM {
			return WebM, true
		}
		return "", false
	case len(head) >= 12 && bytes.Equal(head[4:8], []byte("ftyp")):
		return M4A, true
	case bytes.HasPrefix(head, []byte("ID3")):
		return MP3, true
	case bytes.HasPrefix(head, []byte("ADIF")):
		return AAC, true
	case len(head) >= 4 && head[0] == 0xFF && head[1]&0xE0 == 0xE0:
		return frameFormat(head)
	}
	return "", false
}

// frameFormat tells an MPEG audio frame (MP3: layer bits set) from an ADTS AAC frame (layer bits 00),
// and checks the next header where the first frame's length says it is, so noise that happens to
// start with 0xFF is not taken for audio.
func frameFormat(head []byte) (Format, bool) {
	layer := (head[1] >> 1) & 3
	if layer == 0 {
		if head[1]&0xF6 != 0xF0 || len(head) < 7 {
			return "", false
		}
		n := int(head[3]&3)<<11 | int(head[4])<<3 | int(head[5])>>5
		if n < 7 || (n+2 <= len(head) && !(head[n] == 0xFF && head[n+1]&0xF6 == 0xF0)) {
			return "", false
		}
		return AAC, true
	}
	bitrate, rate := (head[2]>>4)&0xF, (head[2]>>2)&3
	if bitrate == 0 || bitrate == 0xF || rate == 3 {
		return "", false
	}
	return MP3, true
}

// hint reads a format from a file name's extension or a content type.
func hint(filename, contentType string) Format {
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(filename)), ".")
	switch Format(ext) {
	case MP3, WAV, M4A, OGG, FLAC, AAC, OPUS, WebM:
		return Format(ext)
	}
	if mt, _, err := mime.ParseMediaType(contentType); err == nil && (mt == "audio/webm" || mt == "video/webm") {
		return WebM
	}
	return ""
}
