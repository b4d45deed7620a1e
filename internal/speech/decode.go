package speech

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
)

// DefaultMaxSeconds is how long a recording may last when the server does not say otherwise.
const DefaultMaxSeconds = 600

// demuxers names ffmpeg's demuxer for each detected format. ffmpeg is always told which one to use:
// left to probe, it reads a file that starts like an MP3 (an ID3 tag) and goes on like an HLS playlist
// as that playlist, and opens the files and URLs it names.
var demuxers = map[Format]string{
	MP3: "mp3", WAV: "wav", M4A: "mov", OGG: "ogg", FLAC: "flac", AAC: "aac", OPUS: "ogg", WebM: "matroska",
}

// pcmRate and pcmBytes describe what the recogniser reads: 16 kHz mono signed 16-bit PCM.
const (
	pcmRate   = 16000
	pcmBytes  = 2 * pcmRate
	wavHeader = 44
)

// decode turns the recording at path into a 16 kHz mono WAV file at wav and returns its duration in
// seconds. ffmpeg reads only that file, with the demuxer of the detected format, and stops writing a
// second past maxSeconds (and past the bytes that many seconds take), so neither its time nor its
// output grows with what the file claims to hold; a recording that reaches the bound is ErrTooLong.
func decode(ctx context.Context, ffmpeg, path string, format Format, maxSeconds float64, wav string) (float64, error) {
	demuxer, ok := demuxers[format]
	if !ok {
		return 0, fmt.Errorf("%w: no decoder for format %q", ErrUndecodable, format)
	}
	if maxSeconds <= 0 {
		maxSeconds = DefaultMaxSeconds
	}
	limit := maxSeconds + 1
	maxSize := int64(limit*pcmBytes) + wavHeader + 4096
	var stderr bytes.Buffer
	dec := exec.CommandContext(ctx, ffmpeg, "-nostdin", "-hide_banner", "-loglevel", "error",
		// Input: only the local file protocol, the named demuxer, and no data references to other files.
		"-protocol_whitelist", "file", "-f", demuxer, "-i", "file:"+path,
		// Output: audio only, bounded in duration and in bytes.
		"-map", "0:a:0", "-vn", "-sn", "-dn", "-ac", "1", "-ar", strconv.Itoa(pcmRate), "-c:a", "pcm_s16le",
		"-t", strconv.FormatFloat(limit, 'f', 3, 64), "-fs", strconv.FormatInt(maxSize, 10),
		"-f", "wav", "-y", "file:"+wav)
	dec.Stderr = &stderr
	// The recogniser needs nothing else from the environment; an empty one keeps variables such as
	// http_proxy from steering ffmpeg anywhere.
	dec.Env = []string{}
	if err := dec.Run(); err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, fmt.Errorf("%w: %s", ErrUndecodable, firstLine(stderr.String()))
	}
	st, err := os.Stat(wav)
	if err != nil {
		return 0, err
	}
	duration := float64(max(st.Size()-wavHeader, 0)) / pcmBytes
	if duration > maxSeconds {
		return 0, fmt.Errorf("%w: it lasts more than %g seconds", ErrTooLong, maxSeconds)
	}
	return duration, nil
}
