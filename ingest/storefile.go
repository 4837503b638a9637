package ingest

import (
	"os"
	"path/filepath"
)

// StoreFile returns the file ReadFile reads for path: for a Jepsen store
// directory its history.edn (or history.json, history.jsonl, in that
// order), else path itself. ok is false for a directory holding none of
// them. It lets a caller hash the very bytes a history was read from
// (package check's digest).
func StoreFile(path string) (file string, ok bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.IsDir() {
		return path, true
	}
	for _, n := range storeFiles {
		p := filepath.Join(path, n)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, true
		}
	}
	return "", false
}
