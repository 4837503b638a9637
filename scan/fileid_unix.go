//go:build unix

package scan

import (
	"io/fs"
	"syscall"
)

// fileID identifies a file or directory on this machine.
type fileID struct{ dev, ino uint64 }

// idOf returns the device and inode of fi, and false when fi carries none.
func idOf(fi fs.FileInfo) (fileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, true //nolint:unconvert // Dev is int32 on darwin
}
