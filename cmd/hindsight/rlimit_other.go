//go:build !unix

package main

// addressLimit reports no address-space limit where there is no ulimit -v.
func addressLimit() (int64, bool) { return 0, false }
