package abort

// Classes of a pair (docs/abort.md#pairs), with first and last the first
// and last offsets of a poll as it lists them.
const (
	// Advance: last(P) < first(N).
	Advance = "advance"
	// Rewind: first(N) = first(P).
	Rewind = "rewind"
	// RewindFurther: first(N) < first(P).
	RewindFurther = "rewind-further"
	// Other: N starts inside P's range, past its first offset.
	Other = "other"
)

// Classes lists the classes in the count table's order.
var Classes = []string{Advance, Rewind, RewindFurther, Other}

// Outcomes of a pair's first poll, in the count table's order.
const (
	Committed = "committed"
	Aborted   = "aborted"
	Unknown   = "unknown"
)

// Outcomes lists the outcomes in the count table's order.
var Outcomes = []string{Committed, Aborted, Unknown}
