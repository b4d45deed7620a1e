package speech_test

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/loopwork/loopwork/internal/speech"
)

func assertDetected(t *testing.T, path string, want speech.Format) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	head := make([]byte, speech.HeadSize)
	n, _ := io.ReadFull(f, head)
	// The name says nothing: detection is by content.
	if got, ok := speech.Detect(head[:n], "upload.bin", "application/octet-stream"); !ok || got != want {
		t.Fatalf("%s detected as %q (%v), want %s", filepath.Base(path), got, ok, want)
	}
}

// TestDetectRefusesWhatIsNotAudio: text, images, archives and noise are refused whatever their name.
func TestDetectRefusesWhatIsNotAudio(t *testing.T) {
	cases := map[string][]byte{
		"text.mp3":  []byte("hello, this is not audio at all"),
		"png.wav":   {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13},
		"zip.m4a":   {'P', 'K', 3, 4, 20, 0, 0, 0},
		"noise.aac": {0xFF, 0xF1, 0x00, 0x00, 0x00, 0x00, 0x00, 0x12, 0x34},
		"mkv.webm":  {0x1A, 0x45, 0xDF, 0xA3, 0x01, 'm', 'a', 't', 'r', 'o', 's', 'k', 'a'},
		"empty.ogg": {},
	}
	for name, b := range cases {
		if f, ok := speech.Detect(b, name, ""); ok && name != "mkv.webm" {
			t.Errorf("%s detected as %s", name, f)
		}
	}
	// An EBML file named .webm is taken for WebM: browsers' recordings are Matroska with that doctype.
	if f, ok := speech.Detect(cases["mkv.webm"], "x.mkv", ""); ok {
		t.Errorf("a Matroska file named .mkv detected as %s", f)
	}
}

// TestDetectMP3WithoutTag: an MP3 stream with no ID3 tag is told from ADTS AAC by its frame header.
func TestDetectMP3WithoutTag(t *testing.T) {
	needSpeech(t)
	out := filepath.Join(t.TempDir(), "bare.mp3")
	cmd := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-f", "s16le", "-ar", "16000", "-ac", "1",
		"-i", filepath.Join(testData, "goforward.raw"), "-c:a", "libmp3lame", "-id3v2_version", "0", "-write_xing", "0",
		"-f", "mp3", "-y", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, b)
	}
	assertDetected(t, out, speech.MP3)
}

func TestWordErrorRate(t *testing.T) {
	for _, c := range []struct {
		ref, hyp string
		want     float64
	}{
		{"go forward ten meters", "go forward ten meters", 0},
		{"go forward ten meters", "go forward meters", 0.25},
		{"go forward ten meters", "go for word ten meters", 0.5},
		{"a b", "", 1},
		{"", "", 0},
	} {
		if got := speech.WordErrorRate(c.ref, c.hyp); got != c.want {
			t.Errorf("%q vs %q: %v, want %v", c.ref, c.hyp, got, c.want)
		}
	}
}
