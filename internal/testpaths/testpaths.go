// Package testpaths tells tests where the histories they read live, from
// whatever package directory `go test` runs them in.
//
// The specification fixtures are part of the repository, under
// testdata/<workload>/, so tests that read them always run. The real
// histories of the corpus and the reference results stay outside the
// repository (their licences forbid copying them in): they are looked for in
// ../shared/ beside the repository root, and a test that needs them is
// skipped with one line when they are absent.
package testpaths

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// root finds the repository root: the nearest directory, from the working
// directory up, that holds go.mod. It returns it relative to the working
// directory, so that paths built on it stay short in test names and
// messages ("../testdata/queue").
func root() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Rel(wd, dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("testpaths: no go.mod in " + wd + " or above")
		}
		dir = parent
	}
}

// Root returns the repository root, relative to the working directory. It
// panics if there is no go.mod above the working directory, which cannot
// happen under go test; this lets package-level test tables use it.
func Root() string {
	r, err := root()
	if err != nil {
		panic(err)
	}
	return r
}

// Testdata returns the path of testdata/elem... under the repository root,
// relative to the working directory. The repository's own test data is
// never optional: a test that finds nothing there must fail, not skip.
func Testdata(elem ...string) string {
	return filepath.Join(append([]string{Root(), "testdata"}, elem...)...)
}

// Corpus returns the shared corpus folder (../shared/corpus beside the
// repository), or skips the test with one line when it is absent.
func Corpus(t testing.TB) string {
	t.Helper()
	return outside(t, "corpus")
}

// FindCorpus returns the shared corpus folder and whether it is there, for
// tests that use it when present and run without it otherwise.
func FindCorpus() (string, bool) {
	return look(Root(), "corpus")
}

// Reference returns the shared reference results folder
// (../shared/reference beside the repository), or skips the test with one
// line when it is absent.
func Reference(t testing.TB) string {
	t.Helper()
	return outside(t, "reference")
}

func outside(t testing.TB, name string) string {
	t.Helper()
	dir, ok := look(Root(), name)
	if !ok {
		t.Skip(SkipMessage(name))
	}
	return dir
}

// look returns ../shared/name beside root and whether it is a directory.
func look(root, name string) (string, bool) {
	dir := filepath.Join(root, "..", "shared", name)
	fi, err := os.Stat(dir)
	return dir, err == nil && fi.IsDir()
}

// SkipMessage is the one line a test skipped for want of ../shared/name
// prints.
func SkipMessage(name string) string {
	return fmt.Sprintf("../shared/%s not found beside the repository: %s tests skipped (see README)", name, name)
}
