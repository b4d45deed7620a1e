package deploy_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/internal/deploy"
	"github.com/loopwork/loopwork/internal/testkit"
)

// repoRoot is the directory holding go.mod, the Dockerfile and compose.yaml.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for ; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		if dir == filepath.Dir(dir) {
			t.Fatal("no go.mod above the test's directory")
		}
	}
}

func dockerfile(t *testing.T) *deploy.Dockerfile {
	t.Helper()
	f, err := os.Open(filepath.Join(repoRoot(t), "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := deploy.ParseDockerfile(f)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// pinned reports whether an image reference names a fixed release: a digest, or a tag that is neither
// missing nor latest nor a bare major version that moves with every release ("15", "1").
func pinned(ref string) bool {
	if strings.Contains(ref, "@sha256:") {
		return true
	}
	i := strings.LastIndex(ref, ":")
	if i < 0 || strings.Contains(ref[i:], "/") {
		return false
	}
	tag := ref[i+1:]
	if tag == "latest" || tag == "" {
		return false
	}
	_, err := strconv.Atoi(strings.TrimPrefix(tag, "v"))
	return err != nil
}

// serverStages are the stages that run loopwork: the default (last) one and the speech one.
func serverStages(t *testing.T, d *deploy.Dockerfile) []*deploy.Stage {
	t.Helper()
	speech, err := d.Stage("speech")
	if err != nil {
		t.Fatal(err)
	}
	return []*deploy.Stage{&d.Stages[len(d.Stages)-1], speech}
}

func TestDockerfileImages(t *testing.T) {
	t.Parallel()
	d := dockerfile(t)
	names := map[string]bool{}
	for _, st := range d.Stages {
		if !names[st.From] && st.From != "scratch" && !pinned(st.From) {
			t.Errorf("stage %s: FROM %s is not pinned to a release tag", st.Name, st.From)
		}
		names[st.Name] = true
	}
	if last := d.Stages[len(d.Stages)-1]; last.Name != "runtime" || last.From != "scratch" {
		t.Errorf("the default (last) stage is %s FROM %s, want the runtime stage on scratch", last.Name, last.From)
	}
}

// TestDockerfileRunsAsNonRoot: each stage that runs the server ends as a numeric, non-zero user (a
// numeric one, so that Kubernetes' runAsNonRoot can verify it without reading /etc/passwd).
func TestDockerfileRunsAsNonRoot(t *testing.T) {
	t.Parallel()
	for _, st := range serverStages(t, dockerfile(t)) {
		user, ok := st.Last("USER")
		if !ok {
			t.Errorf("stage %s: no USER, so it runs as root", st.Name)
			continue
		}
		uid, gid, _ := strings.Cut(user.Raw, ":")
		if n, err := strconv.Atoi(uid); err != nil || n == 0 {
			t.Errorf("stage %s: USER %s is not a numeric non-root uid", st.Name, user.Raw)
		}
		if n, err := strconv.Atoi(gid); gid != "" && (err != nil || n == 0) {
			t.Errorf("stage %s: USER %s has a root or non-numeric group", st.Name, user.Raw)
		}
	}
}

// TestDockerfileServes: the server stages listen where they EXPOSE, keep files in their VOLUME, run
// the binary in exec form (so SIGTERM reaches it and it drains) and check their health with it.
func TestDockerfileServes(t *testing.T) {
	t.Parallel()
	for _, st := range serverStages(t, dockerfile(t)) {
		env, err := st.Env()
		if err != nil {
			t.Fatal(err)
		}
		host, port, err := net.SplitHostPort(env["LOOPWORK_ADDR"])
		if err != nil || host != "0.0.0.0" {
			t.Errorf("stage %s: LOOPWORK_ADDR=%q must listen on every interface", st.Name, env["LOOPWORK_ADDR"])
		}
		expose, _ := st.Last("EXPOSE")
		if !slices.Contains(strings.Fields(expose.Raw), port) {
			t.Errorf("stage %s: EXPOSE %q lacks the HTTP port %s", st.Name, expose.Raw, port)
		}
		vol, _ := st.Last("VOLUME")
		if vol.Raw == "" || !strings.HasPrefix(env["LOOPWORK_STORAGE_DIR"], vol.Raw+"/") {
			t.Errorf("stage %s: LOOPWORK_STORAGE_DIR=%q is not inside the VOLUME %q", st.Name, env["LOOPWORK_STORAGE_DIR"], vol.Raw)
		}
		ep, _ := st.Last("ENTRYPOINT")
		cmd, _ := st.Last("CMD")
		if len(ep.Exec) != 1 || !slices.Equal(cmd.Exec, []string{"serve"}) {
			t.Errorf("stage %s: ENTRYPOINT %q CMD %q: want the binary in exec form running serve", st.Name, ep.Raw, cmd.Raw)
		}
		hc, _ := st.Last("HEALTHCHECK")
		if len(ep.Exec) == 1 && !slices.Equal(hc.Exec, []string{ep.Exec[0], "healthcheck"}) {
			t.Errorf("stage %s: HEALTHCHECK %q: want [%q, \"healthcheck\"]", st.Name, hc.Raw, ep.Exec[0])
		}
	}
}

// TestDockerfileBuildsWhatTheTestsRun: the image's go build compiles the package the tests' servers are
// built from, with the Makefile's version flags, statically and without build-machine paths.
func TestDockerfileBuildsWhatTheTestsRun(t *testing.T) {
	t.Parallel()
	build, err := dockerfile(t).Stage("build")
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	for _, in := range build.All("RUN") {
		if strings.Contains(in.Raw, "go build") {
			if words, err = deploy.SplitWords(in.Raw); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(words) == 0 {
		t.Fatal("the build stage has no go build")
	}
	list := exec.Command("go", "list", words[len(words)-1])
	list.Dir = repoRoot(t) // the stage's WORKDIR, holding COPY . .
	out, err := list.Output()
	if err != nil || strings.TrimSpace(string(out)) != testkit.ServerPackage {
		t.Errorf("the Dockerfile builds %s (%s %v), the tests %s", words[len(words)-1], out, err, testkit.ServerPackage)
	}
	for _, w := range []string{"CGO_ENABLED=0", "-trimpath"} {
		if !slices.Contains(words, w) {
			t.Errorf("the Dockerfile's go build lacks %s", w)
		}
	}
	makefile, err := os.ReadFile(filepath.Join(repoRoot(t), "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^LDFLAGS\s*:=\s*(.*)$`).FindSubmatch(makefile)
	if m == nil {
		t.Fatal("Makefile: no LDFLAGS")
	}
	want := strings.ReplaceAll(strings.TrimSpace(string(m[1])), "$(VERSION)", "${VERSION}")
	if i := slices.Index(words, "-ldflags"); i < 0 || i+1 >= len(words) || words[i+1] != want {
		t.Errorf("the Dockerfile's -ldflags are not the Makefile's %q", want)
	}
}

// TestSpeechStageHasTheRecogniser: the speech image installs the Debian packages `make speech` installs
// for the offline recogniser, which its tests run with.
func TestSpeechStageHasTheRecogniser(t *testing.T) {
	t.Parallel()
	makefile, err := os.ReadFile(filepath.Join(repoRoot(t), "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^SPEECH_PACKAGES\s*:=\s*([a-z0-9 -]+)$`).FindSubmatch(makefile)
	if m == nil {
		t.Fatal("Makefile: no SPEECH_PACKAGES line")
	}
	speech, err := dockerfile(t).Stage("speech")
	if err != nil {
		t.Fatal(err)
	}
	var installed []string
	for _, in := range speech.All("RUN") {
		if _, rest, ok := strings.Cut(in.Raw, "apt-get install"); ok {
			installed = append(installed, strings.Fields(rest)...)
		}
	}
	for _, p := range strings.Fields(string(m[1])) {
		if !slices.Contains(installed, p) {
			t.Errorf("the speech stage does not install %s", p)
		}
	}
}
