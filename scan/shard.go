package scan

import (
	"fmt"
	"hash/fnv"
	"path/filepath"
	"strconv"
	"strings"
)

// Shard selects the part of the inputs one machine scans: the inputs whose
// path hash is Index modulo Count. The zero value (Count 0) and Count 1 both
// select everything.
type Shard struct {
	// Index is in [0, Count).
	Index int
	// Count is the number of shards.
	Count int
}

// ParseShard reads "i/n" with 0 <= i < n, as given to --shard.
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("--shard must be i/n, such as 0/4, not %q", s)
	}
	sh := Shard{Index: i, Count: n}
	return sh, sh.Validate()
}

// Validate checks 0 <= Index < Count (or the zero Shard).
func (s Shard) Validate() error {
	if s == (Shard{}) {
		return nil
	}
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("shard %d/%d: need 0 <= i < n", s.Index, s.Count)
	}
	return nil
}

// Sharded reports whether s splits the inputs (Count > 1).
func (s Shard) Sharded() bool { return s.Count > 1 }

// String returns "i/n".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Contains reports whether the history at path belongs to shard s: the
// 64-bit FNV-1a hash of the path, with '/' as separator, modulo Count is
// Index. The split depends only on the path as reported (the argument
// joined with the path below it), so every machine running the same
// command line from the same directory splits an archive the same way, and
// the shards 0/n .. n-1/n partition it.
func (s Shard) Contains(path string) bool {
	if !s.Sharded() {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(filepath.ToSlash(path)))
	return h.Sum64()%uint64(s.Count) == uint64(s.Index)
}

// MarshalText writes "i/n", or nothing for a scan that is not sharded.
func (s Shard) MarshalText() ([]byte, error) {
	if !s.Sharded() {
		return []byte{}, nil
	}
	return []byte(s.String()), nil
}

// suffix is the file name suffix of the shard's outputs: "" or "-i-of-n".
func (s Shard) suffix() string {
	if !s.Sharded() {
		return ""
	}
	return fmt.Sprintf("-%d-of-%d", s.Index, s.Count)
}

// Environment variables of a Kubernetes Indexed Job: the pod's index,
// set by Kubernetes, and the number of completions, which the manifest
// sets (Kubernetes does not).
const (
	EnvCompletionIndex = "JOB_COMPLETION_INDEX"
	EnvCompletions     = "JOB_COMPLETIONS"
)

// ShardFromEnv returns the shard of `--shard auto`: the index from
// JOB_COMPLETION_INDEX, and the count from shards when it is positive
// (--shards N), else from JOB_COMPLETIONS. It fails, saying what to set,
// when the index or the count is missing or malformed, or when --shards and
// JOB_COMPLETIONS disagree (a wrong count would silently leave histories
// out). getenv is os.Getenv, or a stand-in in tests.
func ShardFromEnv(getenv func(string) string, shards int) (Shard, error) {
	is := strings.TrimSpace(getenv(EnvCompletionIndex))
	if is == "" {
		return Shard{}, fmt.Errorf("--shard auto: %s is not set; it is set in the pods of a Kubernetes Indexed Job (completionMode: Indexed). Elsewhere, give --shard i/n", EnvCompletionIndex)
	}
	i, err := strconv.Atoi(is)
	if err != nil || i < 0 {
		return Shard{}, fmt.Errorf("--shard auto: %s=%q is not a shard index (0, 1, ...)", EnvCompletionIndex, is)
	}
	n := shards
	if cs := strings.TrimSpace(getenv(EnvCompletions)); cs != "" {
		c, err := strconv.Atoi(cs)
		if err != nil || c < 1 {
			return Shard{}, fmt.Errorf("--shard auto: %s=%q is not a number of shards", EnvCompletions, cs)
		}
		if shards > 0 && c != shards {
			return Shard{}, fmt.Errorf("--shard auto: --shards %d and %s=%d disagree; set them to the Job's completions", shards, EnvCompletions, c)
		}
		n = c
	}
	if n <= 0 {
		return Shard{}, fmt.Errorf("--shard auto: the number of shards is unknown; give --shards N or set %s to the Job's spec.completions", EnvCompletions)
	}
	sh := Shard{Index: i, Count: n}
	if err := sh.Validate(); err != nil {
		return Shard{}, fmt.Errorf("--shard auto: %s=%d with %d shards: %w", EnvCompletionIndex, i, n, err)
	}
	return sh, nil
}
