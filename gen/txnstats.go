package gen

import (
	"strconv"
	"strings"
)

// TxnInjection records one fault script that WriteTxn carried out, with
// enough detail for a test to find it in the output.
type TxnInjection struct {
	Fault TxnFaultKind
	// Keys are the fresh keys the script used (no other txn touches them).
	Keys []int64
	// Ops are the :index of the completion of each txn of the script, in
	// the order the package doc lists them for the kind.
	Ops []int64
	// Values are the values of note: the garbage value (GarbageRead), the
	// duplicated element (DuplicateElement), the aborted value (AbortedRead,
	// DirtyUpdate), the intermediate value (IntermediateRead); else none.
	Values []int64
}

// String describes the injection in one line.
func (in TxnInjection) String() string {
	var b strings.Builder
	b.WriteString(in.Fault.String())
	list := func(name string, xs []int64) {
		if len(xs) == 0 {
			return
		}
		b.WriteString(" " + name + "=")
		for i, x := range xs {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatInt(x, 10))
		}
	}
	list("keys", in.Keys)
	list("ops", in.Ops)
	list("values", in.Values)
	return b.String()
}

// TxnStats summarises what WriteTxn produced.
type TxnStats struct {
	// Counts are the lines, bytes, processes and end time.
	Counts
	// Txns counts txn invocations; OK, Info and Fail their completions.
	Txns, OK, Info, Fail int64
	// InfoLanded counts :info txns whose writes the store applied.
	InfoLanded int64
	// Reads and Writes count micro-ops of invocations (a write is an append
	// in list-append).
	Reads, Writes int64
	// Keys counts the distinct keys used (retired ones and fault keys too).
	Keys int64
	// Nemesis counts nemesis invocations.
	Nemesis int64
	// Injections lists the fault scripts carried out, in the order they
	// ended.
	Injections []TxnInjection
}

// Injected returns how many faults of kind k were injected.
func (s *TxnStats) Injected(k TxnFaultKind) int {
	return countKind(s.Injections, k, func(in TxnInjection) TxnFaultKind { return in.Fault })
}

// String is a one-line summary.
func (s *TxnStats) String() string {
	var b summary
	b.kvs("lines bytes txns ok info info-landed fail reads writes keys processes nemesis",
		s.Lines, s.Bytes, s.Txns, s.OK, s.Info, s.InfoLanded, s.Fail, s.Reads, s.Writes, s.Keys, s.Processes, s.Nemesis)
	writeFaults(&b, TxnFaultKinds(), s.Injected, len(s.Injections) == 0)
	return b.String()
}
