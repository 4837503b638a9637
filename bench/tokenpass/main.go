// Command tokenpass is a benchmark tool: the bare tokenizer pass over a
// history file that hindsight check's speed is measured against (package
// internal/tokenpass). It prints how long the pass took and what it
// counted, on one line:
//
//	tokenpass FILE
//	tokenpass: FILE: 258363719 bytes, 1390000 lines, 61234567 tokens (...) in 0.612 s, 422 MB/s
//
// bench/bench.sh runs it and hindsight check side by side on the same file.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/hindsight-dev/hindsight/internal/tokenpass"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: tokenpass FILE")
		os.Exit(2)
	}
	start := time.Now()
	c, err := tokenpass.File(os.Args[1])
	el := time.Since(start)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tokenpass:", err)
		os.Exit(1)
	}
	fmt.Printf("tokenpass: %s: %d bytes, %d lines, %d tokens (%d delimiters, %d keywords, %d strings, %d integers summing to %d, %d other atoms) in %.3f s, %.0f MB/s\n",
		os.Args[1], c.Bytes, c.Lines, c.Tokens(), c.Delims, c.Keywords, c.Strings, c.Ints, c.Sum, c.Symbols,
		el.Seconds(), float64(c.Bytes)/1e6/el.Seconds())
}
