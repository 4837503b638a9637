package testhist

import (
	"bytes"
	"fmt"
	"strings"
)

// Lines builds a history as EDN op lines (index and time counting from 0),
// for tests and benchmarks that generate histories in memory.
type Lines struct {
	buf bytes.Buffer
	n   int
}

// Op adds one op line: typ is :invoke, :ok, :info or :fail without the
// colon, f the op's :f without it, value its :value as EDN.
func (l *Lines) Op(typ string, process int, f, value string) {
	fmt.Fprintf(&l.buf, "{:index %d, :time %d, :type :%s, :process %d, :f :%s, :value %s}\n", l.n, l.n, typ, process, f, value)
	l.n++
}

// Pair adds an invocation and its completion (type typ) on process.
func (l *Lines) Pair(process int, f, inv, typ, comp string) {
	l.Op("invoke", process, f, inv)
	l.Op(typ, process, f, comp)
}

// Len is the size of the history so far, in bytes.
func (l *Lines) Len() int { return l.buf.Len() }

// Bytes returns the history so far.
func (l *Lines) Bytes() []byte { return l.buf.Bytes() }

// Ints renders from, from+1, ..., to-1 as EDN, separated by spaces, each
// through format (e.g. "%d", "[%d %d]" with the same number twice).
func Ints(from, to int, format string) string {
	var b strings.Builder
	for i := from; i < to; i++ {
		if i > from {
			b.WriteByte(' ')
		}
		n := strings.Count(format, "%")
		args := make([]any, n)
		for j := range args {
			args[j] = i
		}
		fmt.Fprintf(&b, format, args...)
	}
	return b.String()
}

// Ring is n ops on procs processes, each sending message j to key :x and
// polling the next op's message: one cycle of wr steps through them all
// (a G1c of n steps), whose explanation and witness grow with n.
func Ring(n, procs int) *Lines {
	var l Lines
	for j := range n {
		l.Pair(j%procs, "txn", fmt.Sprintf("[[:send :x %d] [:poll]]", j), "ok",
			fmt.Sprintf("[[:send :x [%d %d]] [:poll {:x [[%d %d]]}]]", j, j, (j+1)%n, (j+1)%n))
	}
	return &l
}

// DescendingPoll is one ok poll of n messages of key k at offsets n down
// to 1, the i-th with value i%repeat: an int-nonmonotonic-poll per read,
// and a duplicate per value when n > repeat, all in one op.
func DescendingPoll(k string, n, repeat int) *Lines {
	var l Lines
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "[%d %d] ", n-i, i%repeat)
	}
	l.Pair(0, "poll", "[[:poll]]", "ok", "[[:poll {"+k+" ["+b.String()+"]}]]")
	return &l
}
