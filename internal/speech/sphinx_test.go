package speech_test

import (
	"context"
	"path/filepath"
	"sort"
	"testing"

	"github.com/loopwork/loopwork/internal/speech"
)

// maxWER is the documented bound of the offline recogniser on the librivox clips (read literary
// English, a hard case for its small language model), averaged over the clips, in any format.
const maxWER = 0.45

// werFormats are the formats the librivox clips are recognised in by make test: the lossless one, which
// measures the recogniser itself. Every format (the lossy ones, whose recognition takes several times
// as long) is held to maxWER by BenchmarkSphinxWER, which make bench runs; make test checks each one
// recognises "go forward ten meters" exactly.
var werFormats = map[speech.Format]bool{speech.WAV: true}

// TestSphinxEveryFormat: real recorded speech, converted to each accepted format, is detected by
// content and recognised: "go forward ten meters" exactly in every format, and the librivox clips
// within maxWER.
func TestSphinxEveryFormat(t *testing.T) {
	s := needSpeech(t)
	dir := t.TempDir()
	clips := librivox(t)
	formats := make([]string, 0, len(encodings))
	for f := range encodings {
		formats = append(formats, string(f))
	}
	sort.Strings(formats)
	for _, name := range formats {
		format := speech.Format(name)
		t.Run(name, func(t *testing.T) {
			gf := encode(t, dir, filepath.Join(testData, "goforward.raw"), true, format)
			assertDetected(t, gf, format)
			res, err := s.Transcribe(context.Background(), gf, format, "en")
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != "go forward ten meters" || res.Language != "en" || res.Duration < 1 || res.Duration > 5 {
				t.Fatalf("goforward: %+v", res)
			}
			if !werFormats[format] {
				return
			}
			var sum float64
			for _, c := range clips {
				path := encode(t, dir, c.path, false, format)
				res, err := s.Transcribe(context.Background(), path, format, "")
				if err != nil {
					t.Fatal(err)
				}
				sum += speech.WordErrorRate(c.transcript, res.Text)
			}
			wer := sum / float64(len(clips))
			t.Logf("%s: librivox word error rate %.3f over %d clips", name, wer, len(clips))
			if wer > maxWER {
				t.Fatalf("word error rate %.3f above the documented %.2f", wer, maxWER)
			}
		})
	}
}

func TestSphinxRefusesOtherLanguages(t *testing.T) {
	s := needSpeech(t)
	gf := encode(t, t.TempDir(), filepath.Join(testData, "goforward.raw"), true, speech.WAV)
	if _, err := s.Transcribe(context.Background(), gf, speech.WAV, "de"); err == nil {
		t.Fatal("a German hint was accepted by an English-only recogniser")
	}
}

// BenchmarkSphinxWER reports the word error rate on the librivox clips in every accepted format, and
// fails when one is above maxWER.
func BenchmarkSphinxWER(b *testing.B) {
	s, ok := speech.FindSphinx(2)
	if !ok {
		b.Skip("offline speech packages not installed")
	}
	dir := b.TempDir()
	for format := range encodings {
		b.Run(string(format), func(b *testing.B) {
			for range b.N {
				var sum float64
				clips := librivox(b)
				for _, c := range clips {
					path := encode(b, dir, c.path, false, format)
					res, err := s.Transcribe(context.Background(), path, format, "")
					if err != nil {
						b.Fatal(err)
					}
					sum += speech.WordErrorRate(c.transcript, res.Text)
				}
				wer := sum / float64(len(clips))
				b.ReportMetric(wer, "WER")
				if wer > maxWER {
					b.Fatalf("%s: word error rate %.3f above the documented %.2f", format, wer, maxWER)
				}
			}
		})
	}
}
