package txn

// Anomaly type names of the transactional workloads, as the headings of
// docs/list-append.md and docs/rw-register.md and Elle spell them. Each doc
// comment states the property violated and the instance fields (JSON names of
// Instance, instance.go); every instance also has witness, the sorted op indices
// (invocations and completions) of its minimal counterexample. Ops are named
// by the index of their completion. Each type's meaning, severity, docs
// section and wording are its entry in catalogue.go (ListAppendCatalogue,
// RWRegisterCatalogue); its wording is in explain.go.
const (
	// G1a (aborted read): an ok txn read an element (list-append) or value
	// (rw-register) that a failed txn wrote. Fields: op, mop, writer, key,
	// element (list-append) or value.
	G1a = "G1a"
	// G1b (intermediate read): an ok txn read a state that another txn
	// wrote and then overwrote within itself (not that txn's final write of
	// the key). Fields: op, mop, writer, key, element or value.
	G1b = "G1b"
	// Internal: a txn read a key inconsistently with its own earlier reads
	// and writes of it. Fields: op, mop, key, expected (the state it should
	// have read; a list that starts with "..." when only its end is known).
	Internal = "internal"
	// FutureRead: a txn read an element it appends only later in itself.
	// Fields: op, mop (the read), key, element.
	FutureRead = "future-read"
	// IncompatibleOrder: two reads of a key, neither a prefix of the other.
	// Fields: key, values (the two lists), ops (their readers).
	IncompatibleOrder = "incompatible-order"
	// DuplicateElements: one read list holds an element more than once.
	// Fields: op, mop, key, duplicates (element -> count).
	DuplicateElements = "duplicate-elements"
	// DirtyUpdate: in a key's version order, a failed txn's element is
	// followed by a committed txn's. Fields: key, values (the elements from
	// the failed one to the committed one), txns [failed, "...", committed].
	DirtyUpdate = "dirty-update"
	// LostUpdate: two or more ok txns read the same state of a key (their
	// first read of it, before writing it) and then wrote it. Fields: key,
	// value (the state read), txns.
	LostUpdate = "lost-update"
	// CyclicVersions (rw-register): a source of version order contradicts
	// the others for a key: merged with them, it makes the key's version
	// order cyclic, so it is dropped for that key. One instance per
	// strongly connected set of values. Fields: key, values (the set, the
	// initial state as null first), sources (the sources merged, the
	// dropped one last), version_cycle (a shortest cycle through those
	// values, each edge with the source and ops behind it).
	CyclicVersions = "cyclic-versions"
	// GarbageRead (ours): a read returned an element or value no op in the
	// history ever wrote. Fields: op, mop, key, and element and values
	// (list-append: one instance per read, the first such element and all
	// of them, each once, in the order read) or value (rw-register: one
	// instance per txn and value).
	GarbageRead = "garbage-read"
	// DuplicateAppends (ours, undecided): one value appended to one key more
	// than once, so the key's order cannot be trusted; the key is left out
	// of the dependency graph. Fields: key, value, ops.
	DuplicateAppends = "duplicate-appends"
	// DuplicateWrites (ours, undecided; rw-register): one value written to
	// one key by more than one txn, and read, so which write a read saw
	// cannot be told; the key is left out of the dependency graph. Fields:
	// key, value, ops (the writers), reader (the first op that read it).
	DuplicateWrites = "duplicate-writes"
	// EmptyTransactionGraph (undecided): the dependency graph has no edge,
	// so nothing could be judged. No fields.
	EmptyTransactionGraph = "empty-transaction-graph"
	// CycleSearchTimeout (undecided): the cycle search of a component ran
	// out of its budget. Fields: anomaly_spec_type (the type being searched),
	// does_not_contain (types searched and not found), scc_size.
	CycleSearchTimeout = "cycle-search-timeout"
)

// Cycle anomaly types: each names the relations on the cycle
// (docs/list-append.md#types-at-a-glance). Fields: cycle (op indices, from
// the lowest), steps (from, to, rel, key, value or values, mops, and for
// ww/rw the order_op whose read showed the order; contested, contradicted_by
// and placed when a read contradicts that order), proof ("proven", "assumes"
// with assumes, "given" with given; package doc, "Proofs and contested
// orders"). The -process and -realtime forms also have process or realtime
// steps. <model>-cycle-exists instances (a cycle in the part of the graph a
// model must keep acyclic, found when no typed witness rules that model out)
// have not, subgraph, scc_size, scc, cycle and steps.
const (
	G0               = "G0"
	G1c              = "G1c"
	GSingleItem      = "G-single-item"
	GNonadjacentItem = "G-nonadjacent-item"
	G2Item           = "G2-item"
)
