package abort

import (
	"strconv"

	"github.com/hindsight-dev/hindsight/analysis"
)

// AppendJSON appends the instance's JSON to b: byte for byte what
// encoding/json writes for it without HTML escaping, as report.JSON
// writes instances (docs/README.md#json-output), which uses it when an
// instance has it. A history of a million polls has a few hundred
// thousand pair instances: on the 1M-poll history of bench/bench.sh,
// encoding/json took about 0.4 CPU-seconds to write them (reflection on
// every field, an allocation per key), this about 0.13 (cpuprofile).
// TestAppendJSON compares the two on every fixture's instances and checks
// that the appender knows every field of Instance.
func (in *Instance) AppendJSON(b []byte) []byte {
	f := analysis.NewJSONFields(b)
	if in.Key != nil {
		f.Value("key", *in.Key)
	}
	if len(in.Offsets) > 0 {
		f.Name("offsets")
		f.B = analysis.AppendJSONInts(f.B, in.Offsets)
	}
	f.Ptr("index", in.Index)
	f.Ptr("op", in.Op)
	f.Ptr("process", in.Process)
	if p := in.Pair; p != nil {
		f.Name("p")
		f.B = p.P.appendJSON(f.B)
		f.Name("n")
		f.B = p.N.appendJSON(f.B)
		f.Name("class")
		f.B = analysis.AppendJSONString(f.B, p.Class, false)
		f.Ptr("committed_position", p.CommittedPosition)
		f.Ptr("committed_by", p.CommittedBy)
		f.Ptr("resume_point", p.ResumePoint)
		f.Ptr("resume_point_op", p.ResumedFrom)
		f.Name("rebalance")
		f.B = strconv.AppendBool(f.B, p.Rebalance)
		if len(p.RebalanceEvents) > 0 {
			f.Name("rebalance_events")
			f.B = analysis.AppendJSONList(f.B, len(p.RebalanceEvents), func(b []byte, i int) []byte { return p.RebalanceEvents[i].appendJSON(b) })
		}
		f.Ptr("gap", p.Gap)
	}
	f.Evidence(&in.Evidence)
	return f.End()
}

// appendJSON appends the poll's JSON (nil as null).
func (p *PollRef) appendJSON(b []byte) []byte {
	if p == nil {
		return append(b, "null"...)
	}
	f := analysis.NewJSONFields(b)
	f.Ptr("invoke", p.Invoke)
	f.Int("op", p.Op)
	f.Int("process", p.Process)
	f.Name("outcome")
	f.B = analysis.AppendJSONString(f.B, p.Outcome, false)
	f.Name("offsets")
	f.B = analysis.AppendJSONInts(f.B, p.Offsets)
	f.True("abort_asked", p.AbortAsked)
	return f.End()
}

// appendJSON appends the event's JSON.
func (e *RebalanceEvent) appendJSON(b []byte) []byte {
	f := analysis.NewJSONFields(b)
	f.Int("op", e.Op)
	f.Name("when")
	f.B = analysis.AppendJSONString(f.B, e.When, false)
	if e.Type != nil {
		f.Value("type", *e.Type)
	}
	if len(e.Keys) > 0 {
		f.Name("keys")
		f.B = analysis.AppendJSONList(f.B, len(e.Keys), func(b []byte, i int) []byte { return e.Keys[i].AppendJSON(b) })
	}
	return f.End()
}
