// Package procfs reads the "Name:  value kB" fields of Linux's /proc
// files (/proc/meminfo, /proc/self/status), which both the memory cap of
// the command and the scan's memory budget look at.
package procfs

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// Bytes returns the field named name (without its colon) of the /proc file
// at path, in bytes: its number, times 1024 when its unit is kB. It is 0
// when the file cannot be read, has no such field, or the field holds no
// number (as on a system without /proc).
func Bytes(path, name string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), name+":")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return 0
		}
		v, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0
		}
		if len(fields) > 1 && strings.EqualFold(fields[1], "kB") {
			v *= 1024
		}
		return v
	}
	return 0
}
