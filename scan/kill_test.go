package scan

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hindsight-dev/hindsight/internal/testpack"
)

// childEnv makes the test binary run a scan instead of the tests: a
// process the kill test can SIGKILL.
const childEnv = "HINDSIGHT_SCAN_TEST_CHILD"

func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		in, out, _ := strings.Cut(spec, string(os.PathListSeparator))
		partBatch = 4 // parts early and often, for the kill test to find
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
// that the part files it wrote are readable and hold each path once, and
// that a rerun sweeps the dead process's temporary files, reuses its
// cached rows and writes complete tables, without a path twice, and
// removes the parts.
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
	parts := func() []string {
		p, _ := filepath.Glob(filepath.Join(out, "histories.part-*.parquet"))
		return p
	}
	deadline := time.Now().Add(60 * time.Second)
	for (entries() < 5 || len(parts()) == 0) && time.Now().Before(deadline) {
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
	flushed := partRows(t, out, "histories")
	if len(parts()) == 0 || len(flushed) < 4 || len(flushed) > killed {
		t.Errorf("after the kill: %d parts holding %d rows; %d histories were cached", len(parts()), len(flushed), killed)
	}
	for path, r := range flushed {
		if r["verdict"] != VerdictValid {
			t.Errorf("part row %s: %v", path, r["verdict"])
		}
	}
	// Fake what a kill can leave: a temporary file of the dead process.
	stray := filepath.Join(out, ".histories.parquet.tmp-"+hostname()+"-"+fmt.Sprint(cmd.Process.Pid)+"-123")
	testpack.WriteFile(t, stray, []byte("PAR1 half"))
	strayCache := filepath.Join(out, ".cache", "ab", ".x.entry.tmp-"+hostname()+"-"+fmt.Sprint(cmd.Process.Pid)+"-456")
	testpack.WriteFile(t, strayCache, []byte("{"))

	sum := mustRun(t, []string{root}, Options{OutDir: out, Jobs: 2, Version: "kill-test"})
	if sum.Done != n || sum.Cached < killed {
		t.Errorf("rerun: %d done, %d cached; want %d done, at least %d cached", sum.Done, sum.Cached, n, killed)
	}
	noTemps(t, out)
	_, rows := readParquet(t, filepath.Join(out, "histories.parquet"))
	if len(rows) != n || len(slices.Compact(paths(rows))) != n {
		t.Errorf("%d rows after the rerun, %d paths; want %d", len(rows), len(slices.Compact(paths(rows))), n)
	}
	if len(parts()) != 0 {
		t.Errorf("the parts are left after the rerun: %v", parts())
	}
	for _, r := range rows {
		if r["verdict"] != VerdictValid {
			t.Errorf("%v: %v %v", r["path"], r["verdict"], r["error"])
		}
	}
}
