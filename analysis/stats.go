package analysis

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Stats are counts about the history and the run: the counts every
// workload keeps are fields here, a workload's own counts a struct of its
// own in Own (queue.Stats, txn.Stats, abort.Stats), whose fields carry
// their JSON names.
type Stats struct {
	Ops       int64
	ClientOps int64
	Keys      int64
	OKOps     int64
	InfoOps   int64
	FailOps   int64
	// OpenOps are invocations that never completed (taken as info).
	OpenOps int64
	// Graph figures of the workloads that build a dependency graph (queue
	// and txn; 0 for the others): vertices (ops), edges between them
	// (those that go through the graph's hubs counted as the edges they
	// stand for: analysis/graph's hubs.go), nontrivial strongly connected
	// components and the size of the largest.
	GraphVertices    int64
	GraphEdges       int64
	Components       int64
	LargestComponent int64
	ElapsedMS        int64
	// Own is a pointer to the workload's own counts, nil when it has none.
	Own any
}

// statsKey is one key of the v1 stats object: its JSON name and whether
// it appears only when the workload's counts have it.
type statsKey struct {
	name     string
	optional bool
}

// v1Stats are the keys of the stats object of the v1 JSON
// (docs/README.md#json-output), in their order: every result has each of
// them, 0 where its workload keeps no such count, except the three
// optional ones, present only when set. A workload's counts beyond these
// follow them, in the order of its struct.
var v1Stats = []statsKey{
	{"ops", false}, {"client_ops", false}, {"keys", false}, {"messages", false}, {"sends", false},
	{"polls", false}, {"txns", false}, {"ok_ops", false}, {"info_ops", false}, {"fail_ops", false},
	{"open_ops", false}, {"unpositioned_skipped", false}, {"graph_vertices", false}, {"graph_edges", false},
	{"cyclic_components", false}, {"largest_component", false}, {"worst_realtime_lag_s", false},
	{"worst_realtime_lag_process", true}, {"worst_realtime_lag_key", true}, {"worst_realtime_lag_op", true},
	{"elapsed_ms", false},
}

// MarshalJSON writes the v1 stats object: the v1 keys in order (the
// shared counts from s, the others from s.Own, 0 when absent), then the
// keys of s.Own that v1 does not name. O(keys).
func (s Stats) MarshalJSON() ([]byte, error) {
	vals := map[string][]byte{}
	for k, v := range map[string]int64{"ops": s.Ops, "client_ops": s.ClientOps, "keys": s.Keys, "ok_ops": s.OKOps,
		"info_ops": s.InfoOps, "fail_ops": s.FailOps, "open_ops": s.OpenOps, "graph_vertices": s.GraphVertices,
		"graph_edges": s.GraphEdges, "cyclic_components": s.Components, "largest_component": s.LargestComponent,
		"elapsed_ms": s.ElapsedMS} {
		vals[k] = fmt.Appendf(nil, "%d", v)
	}
	own, err := ownFields(s.Own)
	if err != nil {
		return nil, err
	}
	for _, f := range own {
		if _, shared := vals[f.name]; !shared {
			vals[f.name] = f.value
		}
	}
	var b bytes.Buffer
	b.WriteByte('{')
	put := func(name string, v []byte) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:", name)
		b.Write(v)
	}
	v1 := map[string]bool{}
	for _, k := range v1Stats {
		v1[k.name] = true
		switch v, ok := vals[k.name]; {
		case ok:
			put(k.name, v)
		case !k.optional:
			put(k.name, []byte("0"))
		}
	}
	for _, f := range own {
		if !v1[f.name] {
			put(f.name, f.value)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// ownField is one key of a workload's own counts and its JSON value.
type ownField struct {
	name  string
	value json.RawMessage
}

// ownFields are the keys of own's JSON object in order (none for nil),
// written without HTML escaping: the result's encoder decides that.
func ownFields(own any) ([]ownField, error) {
	if own == nil {
		return nil, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(own); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(&buf)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("stats of %T: not a JSON object", own)
	}
	var fs []ownField
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		f := ownField{name: t.(string)}
		if err := dec.Decode(&f.value); err != nil {
			return nil, err
		}
		fs = append(fs, f)
	}
	return fs, nil
}

// OwnStats returns the workload counts of type T of r (Stats.Own),
// adding zero counts to a result that has none yet.
func OwnStats[T any](r *Result) *T {
	if s, ok := r.Stats.Own.(*T); ok {
		return s
	}
	s := new(T)
	r.Stats.Own = s
	return s
}

// OwnOf returns the workload counts of type T in s, or zero counts when s
// has none of that type; unlike OwnStats it changes nothing.
func OwnOf[T any](s Stats) T {
	if o, ok := s.Own.(*T); ok {
		return *o
	}
	var zero T
	return zero
}
