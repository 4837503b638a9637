package scan

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childEnv makes the test binary run a scan instead of the tests: a
// process the kill test can SIGKILL.
const childEnv = "HINDSIGHT_SCAN_TEST_CHILD"

func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		in, out, _ := strings.Cut(spec, string(os.PathListSeparator))
		_, err := Run(context.Background(), []string{in}, Options{OutDir: out, Jobs: 2, Version: "kill-test"})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestKillResume kills a scanning process with SIGKILL midway (no chance
// to clean up), then checks that no table exists, half-written or not,
// and that a rerun sweeps the dead process's temporary files, reuses its
// cached rows and writes complete tables.
func TestKillResume(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	const n = 60
	root := archiveOfSize(t, n, 12000)
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+root+string(os.PathListSeparator)+out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	entries := func() int {
		n := 0
		filepath.WalkDir(filepath.Join(out, ".cache"), func(p string, d os.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(p, ".entry") {
				n++
			}
			return nil
		})
		return n
	}
	deadline := time.Now().Add(60 * time.Second)
	for entries() < 5 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	killed := entries()
	if killed >= n {
		t.Skipf("the scan finished (%d entries) before it could be killed", killed)
	}
	for _, name := range []string{"histories.parquet", "anomalies.parquet"} {
		if _, err := os.Stat(filepath.Join(out, name)); err == nil {
			t.Errorf("%s exists after the scan was killed midway", name)
		}
	}
	// Fake what a kill can leave: a temporary file of the dead process.
	stray := filepath.Join(out, ".histories.parquet.tmp-"+hostname()+"-"+fmt.Sprint(cmd.Process.Pid)+"-123")
	writeFile(t, stray, []byte("PAR1 half"))
	strayCache := filepath.Join(out, ".cache", "ab", ".x.entry.tmp-"+hostname()+"-"+fmt.Sprint(cmd.Process.Pid)+"-456")
	writeFile(t, strayCache, []byte("{"))

	sum := mustRun(t, []string{root}, Options{OutDir: out, Jobs: 2, Version: "kill-test"})
	if sum.Done != n || sum.Cached < killed {
		t.Errorf("rerun: %d done, %d cached; want %d done, at least %d cached", sum.Done, sum.Cached, n, killed)
	}
	noTemps(t, out)
	_, rows := readParquet(t, filepath.Join(out, "histories.parquet"))
	if len(rows) != n {
		t.Errorf("%d rows after the rerun, want %d", len(rows), n)
	}
	for _, r := range rows {
		if r["verdict"] != VerdictValid {
			t.Errorf("%v: %v %v", r["path"], r["verdict"], r["error"])
		}
	}
}
