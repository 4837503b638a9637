package gen

import (
	"fmt"
	"strconv"
	"strings"
)

// Workload names the kind of history a generator writes.
type Workload uint8

// Workloads histgen can write. Write produces Queue histories, WriteTxn
// ListAppend and RWRegister, WriteAbort Abort.
const (
	// Queue is the Kafka queue workload of docs/queue.md (Write).
	Queue Workload = iota
	// ListAppend is Elle's list-append workload of docs/list-append.md
	// (WriteTxn).
	ListAppend
	// RWRegister is Elle's rw-register workload of docs/rw-register.md
	// (WriteTxn).
	RWRegister
	// Abort is the abort workload of docs/abort.md (WriteAbort).
	Abort
	numWorkloads
)

var workloadNames = [numWorkloads]string{"queue", "list-append", "rw-register", "abort"}

// String returns the workload's command-line name, e.g. "list-append".
func (w Workload) String() string {
	if w < numWorkloads {
		return workloadNames[w]
	}
	return "Workload(" + strconv.Itoa(int(w)) + ")"
}

// ParseWorkload reads a workload name as printed by Workload.String.
func ParseWorkload(s string) (Workload, error) {
	for i, n := range workloadNames {
		if n == s {
			return Workload(i), nil
		}
	}
	return 0, fmt.Errorf("unknown workload %q (want one of %s)", s, strings.Join(workloadNames[:], ", "))
}

// TxnFaultKind names one kind of misbehaviour WriteTxn can inject into a
// transactional history. Each injection is a small script of transactions on
// keys of its own (see the package doc, "Transactional faults"), so that the
// anomalies it causes are exactly those TxnFaultKind.Anomalies lists.
type TxnFaultKind uint8

// Transactional fault kinds. The order is the order of TxnFaultKinds and of
// the summary.
const (
	// AbortedRead: an ok txn reads a value written by a txn that failed
	// (G1a).
	AbortedRead TxnFaultKind = iota
	// IntermediateRead: an ok txn reads a value another txn overwrote within
	// itself (G1b).
	IntermediateRead
	// LostUpdate: two concurrent txns read the same version of a key and both
	// write it.
	LostUpdate
	// StaleRead: a txn reads a key's state from before a write that completed
	// before the txn began.
	StaleRead
	// WriteCycle: two concurrent txns write two keys, and the store orders
	// their writes one way on one key and the other way on the other (G0).
	WriteCycle
	// IncompatibleOrder: two reads of a key show its elements in orders
	// neither of which extends the other (list-append only).
	IncompatibleOrder
	// DuplicateElement: a read list holds one element twice (list-append
	// only).
	DuplicateElement
	// GarbageRead: a read returns a value no txn wrote (a negative number).
	GarbageRead
	// InternalRead: a txn's read of a key does not reflect its own earlier
	// write to it.
	InternalRead
	// FutureRead: a txn's read shows an element the txn appends only later
	// (list-append only).
	FutureRead
	// DirtyUpdate: a committed append lands on top of one from a failed txn
	// (list-append only).
	DirtyUpdate
	numTxnFaultKinds
)

var txnFaultNames = [numTxnFaultKinds]string{
	"aborted-read", "intermediate-read", "lost-update", "stale-read", "write-cycle",
	"incompatible-order", "duplicate-element", "garbage-read", "internal", "future-read", "dirty-update",
}

// String returns the fault's command-line name, e.g. "aborted-read".
func (k TxnFaultKind) String() string {
	if k < numTxnFaultKinds {
		return txnFaultNames[k]
	}
	return "TxnFaultKind(" + strconv.Itoa(int(k)) + ")"
}

// AppliesTo reports whether the fault can be injected into workload w:
// every kind for list-append; all but IncompatibleOrder, DuplicateElement,
// FutureRead and DirtyUpdate (which need lists) for rw-register.
func (k TxnFaultKind) AppliesTo(w Workload) bool {
	switch w {
	case ListAppend:
		return k < numTxnFaultKinds
	case RWRegister:
		switch k {
		case AbortedRead, IntermediateRead, LostUpdate, StaleRead, WriteCycle, GarbageRead, InternalRead:
			return true
		}
	}
	return false
}

// Anomalies returns the anomaly types (the headings of docs/<workload>.md) that
// hindsight must report for one injection of k into workload w, checked with
// the default options (strict-serializable, no rw-register version-order
// flags), and, in withWFR, the further types --wfr-keys adds (rw-register
// only). The injection causes nothing else: its keys are its own, so no
// other transaction takes part in its anomalies. nil when k does not apply
// to w. The package doc says why each type appears.
func (k TxnFaultKind) Anomalies(w Workload) (types, withWFR []string) {
	if !k.AppliesTo(w) {
		return nil, nil
	}
	la := w == ListAppend
	switch k {
	case AbortedRead:
		return []string{"G1a"}, nil
	case IntermediateRead:
		if la {
			return []string{"G1b", "G-single-item"}, nil
		}
		return []string{"G1b"}, nil
	case LostUpdate:
		if la {
			return []string{"lost-update", "G-single-item"}, nil
		}
		return []string{"lost-update"}, []string{"G2-item"}
	case StaleRead:
		return []string{"G-single-item-realtime"}, nil
	case WriteCycle:
		if la {
			return []string{"G0"}, nil
		}
		return []string{"G1c"}, []string{"PL-1-cycle-exists"}
	case IncompatibleOrder:
		return []string{"incompatible-order"}, nil
	case DuplicateElement:
		return []string{"duplicate-elements"}, nil
	case GarbageRead:
		return []string{"garbage-read"}, nil
	case InternalRead:
		return []string{"internal"}, nil
	case FutureRead:
		return []string{"future-read"}, nil
	case DirtyUpdate:
		return []string{"G1a", "dirty-update"}, nil
	}
	return nil, nil
}

// TxnFaultKinds returns every transactional fault kind, in declaration order.
func TxnFaultKinds() []TxnFaultKind {
	return allKinds[TxnFaultKind](numTxnFaultKinds)
}

// ParseTxnFaultKind reads a fault name as printed by TxnFaultKind.String.
func ParseTxnFaultKind(s string) (TxnFaultKind, error) {
	return parseKind[TxnFaultKind](txnFaultNames[:], "transactional fault", s)
}

// TxnFault asks for Count injections of one transactional fault kind.
type TxnFault = Injections[TxnFaultKind]

// ParseTxnFault reads "kind" (one injection) or "kind=count".
func ParseTxnFault(s string) (TxnFault, error) { return parseFault(s, ParseTxnFaultKind) }

// Defaults of TxnConfig fields whose zero value means "the default".
const (
	DefaultMaxTxnLen       = 4
	DefaultMaxWritesPerKey = 32
)

// TxnConfig describes one generated transactional history. The same
// TxnConfig always produces the same bytes.
type TxnConfig struct {
	// Seed seeds the PCG random source; everything random derives from it.
	Seed int64
	// Workload is ListAppend or RWRegister.
	Workload Workload
	// Txns is the number of transactions (invocations) in the history,
	// fault scripts included; each is completed.
	Txns int
	// Concurrency is the number of client workers, each running one process
	// at a time (a worker's process id grows by Concurrency after each info).
	Concurrency int
	// Keys is the number of keys in use at any time. A key that has had
	// its share of writes (see MaxWritesPerKey) is retired and a fresh key
	// takes its place, as Elle's generator does.
	Keys int
	// MaxTxnLen is the most micro-ops in a txn (1..MaxTxnLen, uniform);
	// zero means DefaultMaxTxnLen.
	MaxTxnLen int
	// MaxWritesPerKey bounds the appends (or writes) a key gets before it
	// is retired: each key draws its limit uniformly from
	// [⌈MaxWritesPerKey/2⌉, MaxWritesPerKey], so that keys do not all
	// retire at once. Zero means DefaultMaxWritesPerKey.
	MaxWritesPerKey int
	// InfoRate and FailRate are the probabilities that a txn completes
	// :info or :fail (fault scripts aside).
	InfoRate, FailRate float64
	// ReadLag, when positive, makes the store misbehave like a store whose
	// per-key followers lag behind their leaders: every ok txn draws a lag
	// from 0..ReadLag and reads each key it does not write as it was that
	// many writes ago (stale reads; lists stay prefixes of each other),
	// while its writes and its reads of keys it writes see the latest
	// state. Zero gives a strict-serializable store.
	ReadLag int
	// OmitF leaves :f out of client ops, as many real histories do.
	OmitF bool
	// Nemesis adds network-partition ops of the nemesis
	// ({:process :nemesis, :type :info, :f :start-partition ...}) now and then.
	Nemesis bool
	// Faults lists the injections to make; see TxnFaultKind.
	Faults []TxnFault
	// Format is the output format.
	Format Format
}

// HugeSCCConfig returns the configuration of a 10,000-txn list-append
// history in the spirit of Elle's huge-scc-test (jepsen-io/elle
// test/elle/list_append_test.clj and histories/huge-scc.edn): many failed
// and crashed txns, and a store whose reads lag up to 8 writes behind
// (ReadLag), so that nearly every ok txn, and every crashed one whose
// writes were seen, falls into one strongly connected component of the
// dependency graph (package doc, "Huge SCC").
func HugeSCCConfig(seed int64) TxnConfig {
	return TxnConfig{
		Seed:            seed,
		Workload:        ListAppend,
		Txns:            10000,
		Concurrency:     10,
		Keys:            8,
		MaxTxnLen:       4,
		MaxWritesPerKey: 64,
		InfoRate:        0.05,
		FailRate:        0.2,
		ReadLag:         8,
	}
}

// minFaultConcurrency is the concurrency fault scripts need: a stage of two
// overlapping txns plus a later txn on a third worker, so that no process
// edge joins two txns of one script.
const minFaultConcurrency = 3

// validate checks the config and fills defaults into a copy.
func (c TxnConfig) validate() (TxnConfig, error) {
	var p problems
	p.add(c.Workload != ListAppend && c.Workload != RWRegister, fmt.Sprintf("workload must be list-append or rw-register, got %s", c.Workload))
	p.add(c.Txns < 0, "txns must be >= 0")
	p.clients(c.Concurrency, c.Keys)
	p.add(c.MaxTxnLen < 0, "max txn length must be >= 1 (0: default)")
	if c.MaxTxnLen == 0 {
		c.MaxTxnLen = DefaultMaxTxnLen
	}
	p.add(c.MaxWritesPerKey < 0, "max writes per key must be >= 1 (0: default)")
	if c.MaxWritesPerKey == 0 {
		c.MaxWritesPerKey = DefaultMaxWritesPerKey
	}
	p.rates(rate{"info rate", c.InfoRate}, rate{"fail rate", c.FailRate})
	p.add(c.InfoRate+c.FailRate > 1, "info rate + fail rate must be <= 1")
	p.add(c.ReadLag < 0, "read lag must be >= 0")
	faults := 0
	for _, f := range c.Faults {
		switch {
		case f.Kind >= numTxnFaultKinds:
			p.add(true, fmt.Sprintf("unknown transactional fault kind %d", f.Kind))
		case !f.Kind.AppliesTo(c.Workload) && c.Workload < numWorkloads:
			p.add(true, fmt.Sprintf("fault %s does not apply to %s", f.Kind, c.Workload))
		}
		p.add(f.Count < 0, fmt.Sprintf("fault %s: negative count", f.Kind))
		faults += max(f.Count, 0)
	}
	p.add(faults > 0 && c.Concurrency < minFaultConcurrency, fmt.Sprintf("faults need concurrency >= %d", minFaultConcurrency))
	p.add(c.Format != EDN && c.Format != JSON, fmt.Sprintf("unknown format %d", c.Format))
	return c, p.err()
}
