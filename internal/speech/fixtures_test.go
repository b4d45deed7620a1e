package speech_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/internal/speech"
)

// testData is where Debian's pocketsphinx-testdata puts real recorded speech and its transcripts.
const testData = "/usr/share/pocketsphinx/test/data"

// encodings turn a recording into each accepted format with ffmpeg, as a browser or phone would send it.
var encodings = map[speech.Format][]string{
	speech.WAV:  {"-c:a", "pcm_s16le", "-f", "wav"},
	speech.MP3:  {"-c:a", "libmp3lame", "-b:a", "64k", "-f", "mp3"},
	speech.M4A:  {"-c:a", "aac", "-f", "ipod"},
	speech.OGG:  {"-c:a", "libvorbis", "-f", "ogg"},
	speech.FLAC: {"-c:a", "flac", "-f", "flac"},
	speech.AAC:  {"-c:a", "aac", "-f", "adts"},
	speech.OPUS: {"-c:a", "libopus", "-f", "ogg"},
	speech.WebM: {"-c:a", "libopus", "-f", "webm"},
}

// needSpeech skips a test on a machine without the offline recogniser, unless the run requires it
// (CI installs the packages and sets LOOPWORK_REQUIRE_SPEECH, so there the test cannot be skipped).
func needSpeech(t *testing.T) *speech.Sphinx {
	t.Helper()
	s, ok := speech.FindSphinx(2)
	_, err := os.Stat(filepath.Join(testData, "goforward.raw"))
	if !ok || err != nil {
		if os.Getenv("LOOPWORK_REQUIRE_SPEECH") != "" {
			t.Fatal("pocketsphinx, pocketsphinx-en-us, pocketsphinx-testdata and ffmpeg must be installed")
		}
		t.Skip("offline speech packages not installed (apt-get install pocketsphinx pocketsphinx-en-us pocketsphinx-testdata ffmpeg)")
	}
	return s
}

// encode converts src (a WAV, or raw 16 kHz mono PCM when raw) into format under dir.
func encode(t testing.TB, dir, src string, raw bool, format speech.Format) string {
	t.Helper()
	out := filepath.Join(dir, strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))+"."+string(format))
	args := []string{"-nostdin", "-loglevel", "error"}
	if raw {
		args = append(args, "-f", "s16le", "-ar", "16000", "-ac", "1")
	}
	args = append(args, "-i", src)
	args = append(args, encodings[format]...)
	args = append(args, "-y", out)
	if b, err := exec.Command("ffmpeg", args...).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg %s: %v %s", format, err, b)
	}
	return out
}

type clip struct{ path, transcript string }

var transcriptLine = regexp.MustCompile(`^<s> (.*) </s> \((.*)\)$`)

// librivox reads the recorded clips and what was said in them.
func librivox(t testing.TB) []clip {
	t.Helper()
	f, err := os.Open(filepath.Join(testData, "librivox", "transcription"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []clip
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := transcriptLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		out = append(out, clip{filepath.Join(testData, "librivox", m[2]+".wav"), m[1]})
	}
	if len(out) == 0 {
		t.Fatal("no transcripts read")
	}
	return out
}
