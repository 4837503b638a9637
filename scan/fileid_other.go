//go:build !unix

package scan

import "io/fs"

// fileID identifies a file or directory on this machine.
type fileID struct{ dev, ino uint64 }

// idOf reports false: without inodes, files are not deduplicated and
// symlink loops are not detected on this platform.
func idOf(fs.FileInfo) (fileID, bool) { return fileID{}, false }
