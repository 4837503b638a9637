package ingest

import (
	"os"
	"path/filepath"

	"github.com/hindsight-dev/hindsight/internal/storename"
)

// StoreFile returns the file ReadFile reads for path: for a Jepsen store
// directory its history file (the first of storename.Names it holds, a
// compressed one too), else path itself. ok is false for a directory
// holding none of them. It lets a caller hash the very bytes a history
// was read from (package check's digest).
func StoreFile(path string) (file string, ok bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.IsDir() {
		return path, true
	}
	n, ok := storename.Pick(func(n string) bool {
		st, err := os.Stat(filepath.Join(path, n))
		return err == nil && !st.IsDir()
	})
	if !ok {
		return "", false
	}
	return filepath.Join(path, n), true
}
