package gen

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Format is the text format of a generated history.
type Format uint8

// Formats Write can produce.
const (
	// EDN writes one Jepsen op map per line, as Jepsen's history.edn does.
	EDN Format = iota
	// JSON writes one JSON object per line; type, f and keywords are strings
	// without the leading colon, micro-ops are arrays (ingest's package doc).
	JSON
)

var formatNames = [...]string{EDN: "edn", JSON: "json"}

// String returns "edn" or "json".
func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return "Format(" + strconv.Itoa(int(f)) + ")"
}

// ParseFormat reads "edn" or "json" (case-insensitive).
func ParseFormat(s string) (Format, error) {
	if i := slices.Index(formatNames[:], strings.ToLower(s)); i >= 0 {
		return Format(i), nil
	}
	return 0, fmt.Errorf("unknown format %q (want edn or json)", s)
}

// FaultKind names one kind of injected misbehaviour of the simulated broker.
// The package doc says what each produces in the history.
type FaultKind uint8

// Fault kinds. The order is the order of FaultKinds and of the summary.
const (
	// LostWrite: an acknowledged single send is dropped from the log before
	// anyone reads it; its offset stays taken, later sends go on above it.
	LostWrite FaultKind = iota
	// Duplicate: an acknowledged single send is stored twice, at its acked
	// offset and at the next one; consumers read both copies.
	Duplicate
	// InconsistentOffset: a single send is acknowledged at the offset of a
	// message already in the log (and already seen) and is never stored, so
	// two values are known at one offset.
	InconsistentOffset
	// G1a: a send that completes :fail was nevertheless stored and is read.
	G1a
	// PollSkip: an ok poll of a consumer jumps over one message of a key; the
	// message stays in the log and other consumers read it.
	PollSkip
	// Stall: one consumer keeps getting empty polls for one key for
	// Config.StallDuration of simulated time while sends to the key go on.
	Stall
	// Garbage: a message nobody sent (a negative value) appears in a key's log
	// and consumers read it.
	Garbage
	// TornTxn: an acknowledged transaction with sends to two keys loses one of
	// the two messages from the log; the other is read.
	TornTxn
	// G1c: two concurrent ok transactions, each sending to one key and
	// polling, each read the other's message, which the broker let them
	// see before either committed: a cycle of write-read dependencies.
	// Both clients crash right after.
	G1c
	numFaultKinds
)

var faultNames = [numFaultKinds]string{
	"lost-write", "duplicate", "inconsistent-offset", "g1a", "poll-skip", "stall", "garbage", "torn-txn", "g1c",
}

// String returns the fault's command-line name, e.g. "lost-write".
func (k FaultKind) String() string {
	if k < numFaultKinds {
		return faultNames[k]
	}
	return "FaultKind(" + strconv.Itoa(int(k)) + ")"
}

// FaultKinds returns every fault kind, in declaration order.
func FaultKinds() []FaultKind {
	return allKinds[FaultKind](numFaultKinds)
}

// ParseFaultKind reads a fault name as printed by FaultKind.String.
func ParseFaultKind(s string) (FaultKind, error) {
	return parseKind[FaultKind](faultNames[:], "fault", s)
}

// faultKind is a workload's fault kind type: FaultKind, TxnFaultKind,
// AbortFaultKind.
type faultKind interface {
	~uint8
	String() string
}

// Injections asks for Count injections of one fault kind of a workload.
type Injections[K faultKind] struct {
	Kind  K
	Count int
}

// String returns "kind=count", the form the Parse functions read.
func (f Injections[K]) String() string { return f.Kind.String() + "=" + strconv.Itoa(f.Count) }

// Fault asks for Count injections of one queue fault kind.
type Fault = Injections[FaultKind]

// ParseFault reads "kind" (one injection) or "kind=count".
func ParseFault(s string) (Fault, error) { return parseFault(s, ParseFaultKind) }

// allKinds returns the kinds 0 to n-1 of a fault kind type, in order.
func allKinds[K ~uint8](n K) []K {
	ks := make([]K, n)
	for i := range ks {
		ks[i] = K(i)
	}
	return ks
}

// parseKind returns the kind whose name (names is indexed by kind) is s;
// what names the kind of fault in the error.
func parseKind[K ~uint8](names []string, what, s string) (K, error) {
	for i, n := range names {
		if n == s {
			return K(i), nil
		}
	}
	return 0, fmt.Errorf("unknown %s %q (want one of %s)", what, s, strings.Join(names, ", "))
}

// parseFault reads "kind" (one injection) or "kind=count", the kind with
// parseKind; on an error it returns zeros.
func parseFault[K faultKind](s string, parseKind func(string) (K, error)) (Injections[K], error) {
	name, count, hasCount := strings.Cut(s, "=")
	k, err := parseKind(name)
	if err != nil {
		return Injections[K]{}, err
	}
	if !hasCount {
		return Injections[K]{Kind: k, Count: 1}, nil
	}
	n, err := strconv.Atoi(count)
	if err != nil || n < 0 {
		return Injections[K]{}, fmt.Errorf("fault %q: count must be a non-negative integer", s)
	}
	return Injections[K]{Kind: k, Count: n}, nil
}

// DefaultStallDuration is how long a Stall fault keeps a consumer stuck when
// Config.StallDuration is zero: well past hindsight's default
// --stall-threshold of 10 s.
const DefaultStallDuration = 25 * time.Second

// Config describes one generated history. The same Config always produces
// the same bytes.
type Config struct {
	// Seed seeds the PCG random source; everything random derives from it.
	Seed int64
	// Ops is the number of op lines to write (invocations and completions,
	// client and nemesis). The output has exactly Ops lines, or Ops+1 when
	// Ops is odd, or more when Ops is too small for the final reads.
	Ops int
	// Concurrency is the number of client workers, each running one process
	// at a time (a worker's process id grows by Concurrency after each info).
	Concurrency int
	// Keys is the number of keys (topic-partitions), named 0..Keys-1.
	Keys int
	// TxnFraction is the share of producer/consumer ops that are :txn ops.
	TxnFraction float64
	// InfoRate and FailRate are the probabilities that a send, poll or txn
	// completes :info or :fail (forced outcomes of faults aside).
	InfoRate, FailRate float64
	// Subscribe makes consumers use :subscribe instead of :assign.
	Subscribe bool
	// Faults lists the injections to make; see FaultKind.
	Faults []Fault
	// Format is the output format.
	Format Format
	// StallDuration is the simulated time a Stall fault lasts; zero means
	// DefaultStallDuration.
	StallDuration time.Duration
	// CrashRate is the probability that a worker's client crashes during a
	// send, poll or txn: the op completes :info with Jepsen's
	// "indeterminate: ..." error string, and the worker comes back as a new
	// process (id + Concurrency). Drawn before InfoRate and FailRate, and
	// only when positive, so a zero CrashRate leaves every history as it was.
	CrashRate float64
	// PollAllKeys makes every assign or subscribe take every key, and a
	// process with no assignment (a new one, after a crash) assign before
	// anything else, so that every poll lists all Keys keys, most of them
	// with an empty list.
	PollAllKeys bool
}

// validate checks the config and fills defaults into a copy.
func (c Config) validate() (Config, error) {
	var p problems
	p.add(c.Ops < 0, "ops must be >= 0")
	p.clients(c.Concurrency, c.Keys)
	p.rates(rate{"txn fraction", c.TxnFraction}, rate{"info rate", c.InfoRate}, rate{"fail rate", c.FailRate}, rate{"crash rate", c.CrashRate})
	p.add(c.InfoRate+c.FailRate > 1, "info rate + fail rate must be <= 1")
	for _, f := range c.Faults {
		p.add(f.Kind >= numFaultKinds, fmt.Sprintf("unknown fault kind %d", f.Kind))
		p.add(f.Count < 0, fmt.Sprintf("fault %s: negative count", f.Kind))
	}
	p.add(c.Format != EDN && c.Format != JSON, fmt.Sprintf("unknown format %d", c.Format))
	p.add(c.StallDuration < 0, "stall duration must be >= 0")
	if c.StallDuration == 0 {
		c.StallDuration = DefaultStallDuration
	}
	return c, p.err()
}

// problems collects what is wrong with a generator's config, in the order
// found, so that one error lists them all.
type problems []error

// add records msg when bad.
func (p *problems) add(bad bool, msg string) {
	if bad {
		*p = append(*p, errors.New(msg))
	}
}

// clients checks the client counts every simulation has.
func (p *problems) clients(concurrency, keys int) {
	p.add(concurrency < 1, "concurrency must be >= 1")
	p.add(keys < 1, "keys must be >= 1")
}

// rate is a named probability of a config.
type rate struct {
	name string
	v    float64
}

// rates checks that each rate is in [0, 1].
func (p *problems) rates(rs ...rate) {
	for _, r := range rs {
		p.add(!(r.v >= 0 && r.v <= 1), fmt.Sprintf("%s must be in [0, 1], got %v", r.name, r.v))
	}
}

// err is nil when nothing is wrong, else every problem in one error.
func (p problems) err() error {
	if err := errors.Join(p...); err != nil {
		return fmt.Errorf("gen: invalid config: %w", err)
	}
	return nil
}
