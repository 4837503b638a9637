package txn

import "github.com/hindsight-dev/hindsight/analysis"

// Instance is one anomaly of the list-append and rw-register workloads;
// each type's doc comment in types.go says which fields it uses (the
// others stay nil and out of the JSON). The fields appear in the JSON in
// this order (docs/README.md#json-output).
type Instance struct {
	analysis.Subject
	Value   *analysis.Value  `json:"value,omitempty"`
	Values  []analysis.Value `json:"values,omitempty"`
	Writer  *int64           `json:"writer,omitempty"`
	Reader  *int64           `json:"reader,omitempty"`
	Op      *int64           `json:"op,omitempty"`
	Ops     []int64          `json:"ops,omitempty"`
	Count   *int64           `json:"count,omitempty"`
	Process *int64           `json:"process,omitempty"`
	// CycleFields is set for the cycle types, nil for the others.
	*analysis.CycleFields
	Mop            *analysis.Mop    `json:"mop,omitempty"`
	Element        *analysis.Value  `json:"element,omitempty"`
	Expected       *analysis.Value  `json:"expected,omitempty"`
	Duplicates     map[string]int64 `json:"duplicates,omitempty"`
	Txns           []analysis.Value `json:"txns,omitempty"`
	Not            string           `json:"not,omitempty"`
	Subgraph       string           `json:"subgraph,omitempty"`
	SCCSize        *int64           `json:"scc_size,omitempty"`
	SCC            []int64          `json:"scc,omitempty"`
	SpecType       string           `json:"anomaly_spec_type,omitempty"`
	DoesNotContain []string         `json:"does_not_contain,omitempty"`
	// Sources and VersionCycle belong to rw-register's cyclic-versions:
	// the version-order sources merged for the key (the last one made the
	// cycle and was dropped for it), and a shortest cycle of the key's
	// version order, each edge with the source and ops that put it there.
	Sources      []string               `json:"sources,omitempty"`
	VersionCycle []analysis.VersionStep `json:"version_cycle,omitempty"`
	analysis.Evidence
	// MopElements is the number of elements of the read Mop names, set
	// only when Mop lists just the first of them (MaxMopElements).
	MopElements *int64 `json:"mop_elements,omitempty"`
}

// ListedValues returns the values an anomaly row lists (Value, then
// Values) and none skipped (analysis.Listed).
func (in *Instance) ListedValues() (values, skipped []analysis.Value) {
	if in.Value == nil {
		return in.Values, nil
	}
	return append([]analysis.Value{*in.Value}, in.Values...), nil
}
