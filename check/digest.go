package check

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"os"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/internal/archive"
	"github.com/hindsight-dev/hindsight/model"
)

// Digest is the SHA-256 and the size of a history's bytes as stored: a
// compressed file's compressed bytes, an archive member's bytes as if
// extracted, a store directory's history file. Scan rows carry the same
// two (their sha256 and size_bytes columns), so a check result and a scan
// row of the same file match (hindsight diff; docs/README.md#json-output).
type Digest struct {
	SHA256 string
	Bytes  int64
}

// Set copies d into the result's sha256 and bytes fields.
func (d Digest) Set(r *analysis.Result) {
	if r != nil && d.SHA256 != "" {
		r.SHA256, r.Bytes = d.SHA256, d.Bytes
	}
}

// DigestFile hashes the history at path as ReadFile reads it (a plain or
// compressed file, a store directory, ARCHIVE!/member). One pass over the
// bytes: O(size), constant memory. A pipe or device has no digest (an
// error): it cannot be read a second time.
func DigestFile(path string) (Digest, error) {
	var rc io.ReadCloser
	if _, err := os.Stat(path); err != nil {
		if _, _, ok := archive.Split(path); !ok {
			return Digest{}, err
		}
		m, err := archive.Open(path)
		if err != nil {
			return Digest{}, err
		}
		rc = m
	} else {
		file, ok := ingest.StoreFile(path)
		if !ok {
			return Digest{}, errors.New(path + ": no history file in this directory")
		}
		// Only a regular file can be read twice: a second reader of a
		// pipe (check <(zcat h.gz)) would take bytes from the history.
		if fi, err := os.Stat(file); err != nil || !fi.Mode().IsRegular() {
			return Digest{}, errors.New(file + ": not a regular file; no digest")
		}
		f, err := os.Open(file)
		if err != nil {
			return Digest{}, err
		}
		rc = f
	}
	defer rc.Close()
	h := newHasher()
	if _, err := io.Copy(h, rc); err != nil {
		return Digest{}, err
	}
	return h.Digest(), nil
}

// hasher counts and hashes the bytes written to it.
type hasher struct {
	h hash.Hash
	n int64
}

func newHasher() *hasher { return &hasher{h: sha256.New()} }

func (h *hasher) Write(p []byte) (int, error) {
	h.n += int64(len(p))
	return h.h.Write(p)
}

// Digest returns what was written so far.
func (h *hasher) Digest() Digest {
	return Digest{SHA256: hex.EncodeToString(h.h.Sum(nil)), Bytes: h.n}
}

// ReadDigest is Read that also hashes the bytes it reads into the result's
// sha256 and bytes (standard input, which cannot be read twice), unless
// opts.NoDigest. Scan hashes its files itself and calls Read.
func ReadDigest(r io.Reader, name string, opts Options) (*analysis.Result, *model.History, error) {
	if opts.NoDigest {
		return Read(r, name, opts)
	}
	d := newHasher()
	res, h, err := Read(io.TeeReader(r, d), name, opts)
	if err == nil {
		// ingest may stop at the last op; the rest counts too.
		_, _ = io.Copy(d, r)
		d.Digest().Set(res)
	}
	return res, h, err
}

// DigestReader hashes what r holds, to its end.
func DigestReader(r io.Reader) (Digest, error) {
	h := newHasher()
	_, err := io.Copy(h, r)
	return h.Digest(), err
}
