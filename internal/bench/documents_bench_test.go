package bench_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/testkit"
)

// BenchmarkDocuments takes a CSV file of about 100 MB (BENCH_CSV_MB=n for another size) through a
// server process: a preview of the file sent whole, and of its first megabyte (goal ≤ 1 s each), the
// staged upload, the preview of the staged upload, and the import (rows per second, and the growth of
// the server's resident memory while it imports); in the same run psql \copy loads the same file into a
// table of the same columns, and the ratio of the two is reported (goal ≥ 0.7).
func BenchmarkDocuments(b *testing.B) {
	mb := 100
	if v := os.Getenv("BENCH_CSV_MB"); v != "" {
		mb, _ = strconv.Atoi(v)
	}
	file, rows := writeCSV(b, int64(mb)<<20)
	db := testkit.DB(b)
	dsn := testkit.DSN(b, db)
	token := testkit.SeedCaller(b, db)
	p := testkit.Serve(b, testkit.BuildServer(b), dsn, testkit.FreePort(b), "LOOPWORK_STORAGE_DIR="+b.TempDir())
	var doc struct {
		ID string `json:"id"`
	}
	testkit.Call(b, p.URL, token, "POST", "/api/database", map[string]any{"name": "bench"}, &doc)
	base := "/api/database/" + doc.ID
	st, _ := os.Stat(file)
	report(b, "CSV file", "%.1f MB, %d rows of 6 columns; server RSS %.0f MB", float64(st.Size())/(1<<20), rows, float64(p.RSS())/(1<<20))

	for _, part := range []struct {
		name  string
		bytes int64
	}{{"the whole file", st.Size()}, {"its first MB", 1 << 20}} {
		began := time.Now()
		var pv struct {
			Metadata struct {
				TotalRows int `json:"total_rows"`
			} `json:"metadata"`
		}
		sendFile(b, p.URL+base+"/upload/preview", token, file, part.bytes, &pv)
		report(b, "preview of "+part.name+" sent with the request", "%.3f s (%d rows counted), server RSS %.0f MB", time.Since(began).Seconds(),
			pv.Metadata.TotalRows, float64(p.RSS())/(1<<20))
	}
	began := time.Now()
	var up struct {
		UploadID string `json:"upload_id"`
	}
	sendFile(b, p.URL+base+"/upload", token, file, st.Size(), &up)
	report(b, "staged upload", "%.2f s, server RSS %.0f MB", time.Since(began).Seconds(), float64(p.RSS())/(1<<20))
	began = time.Now()
	sendFields(b, p.URL+base+"/upload/preview", token, "upload_id", up.UploadID)
	report(b, "preview of the staged upload", "%.3f s", time.Since(began).Seconds())

	before := p.RSS()
	peak := before
	began = time.Now()
	testkit.Call(b, p.URL, token, "POST", base+"/upload/complete", map[string]any{"upload_id": up.UploadID}, nil)
	for {
		if r := p.RSS(); r > peak {
			peak = r
		}
		var d struct {
			Status    string `json:"status"`
			TotalRows int    `json:"total_rows"`
			Error     string `json:"error"`
		}
		testkit.Call(b, p.URL, token, "GET", base, nil, &d)
		if d.Status == "failed" {
			b.Fatalf("import failed: %s", d.Error)
		}
		if d.Status == "ready" {
			if d.TotalRows != rows {
				b.Fatalf("%d rows imported, want %d", d.TotalRows, rows)
			}
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	took := time.Since(began)
	report(b, "import", "%d rows in %.2f s: %.0f rows/s, RSS +%.1f MB (%.0f → %.0f MB)", rows, took.Seconds(),
		float64(rows)/took.Seconds(), float64(peak-before)/(1<<20), float64(before)/(1<<20), float64(peak)/(1<<20))

	if _, err := db.Exec(`CREATE TABLE copy_baseline (id text, name text, email text, amount text, day text, note text)`); err != nil {
		b.Fatal(err)
	}
	began = time.Now()
	cmd := exec.Command("psql", dsn, "-q", "-c", `\copy copy_baseline FROM '`+file+`' WITH (FORMAT csv, HEADER)`)
	if o, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("psql: %v %s", err, o)
	}
	copyTook := time.Since(began)
	report(b, "  psql \\copy of the same file", "%.2f s: %.0f rows/s", copyTook.Seconds(), float64(rows)/copyTook.Seconds())
	report(b, "  import / psql \\copy (rows per second)", "%.2f", copyTook.Seconds()/took.Seconds())
}

// writeCSV writes a file of about size bytes: a header and rows with quoted fields among them.
func writeCSV(b *testing.B, size int64) (string, int) {
	path := b.TempDir() + "/data.csv"
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	n, _ := w.WriteString("id,name,email,amount,day,note\n")
	written, rows := int64(n), 0
	for written < size-256 {
		k, _ := fmt.Fprintf(w, "%d,Customer %d,c%d@example.com,%d.%02d,2026-%02d-%02d,\"note, with a comma and \"\"quotes\"\" %d\"\n",
			rows, rows, rows, rows%10000, rows%100, rows%12+1, rows%28+1, rows%997)
		written += int64(k)
		rows++
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return path, rows
}

// sendFile posts the first n bytes of a file as the form's file part, streamed.
func sendFile(b *testing.B, url, token, path string, n int64, out any) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			pw.CloseWithError(err)
			return
		}
		defer f.Close()
		part, _ := mw.CreateFormFile("file", "data.csv")
		io.Copy(part, io.LimitReader(f, n))
		mw.Close()
		pw.Close()
	}()
	post(b, url, token, mw.FormDataContentType(), pr, out)
}

func sendFields(b *testing.B, url, token string, kv ...string) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		for i := 0; i+1 < len(kv); i += 2 {
			mw.WriteField(kv[i], kv[i+1])
		}
		mw.Close()
		pw.Close()
	}()
	post(b, url, token, mw.FormDataContentType(), pr, nil)
}

func post(b *testing.B, url, token, ct string, body io.Reader, out any) {
	req, _ := http.NewRequest("POST", url, body)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", ct)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	msg, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		b.Fatalf("POST %s: %d %s", url, res.StatusCode, msg)
	}
	if out != nil {
		if err := json.Unmarshal(msg, out); err != nil {
			b.Fatal(err)
		}
	}
}
