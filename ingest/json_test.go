package ingest

import (
	"testing"

	"github.com/hindsight-dev/hindsight/model"
)

// TestJSON decodes JSON histories: arrays, JSON Lines, and every shape of
// field and micro-op.
func TestJSON(t *testing.T) {
	tests := []readCase{
		{"JSON array - parses",
			`[{"index": 0, "time": 10, "type": "invoke", "process": 0, "f": "send", "value": [["send", 3, 5]]},
 {"index": 1, "time": 20, "type": "ok", "process": 0, "f": "send", "value": [["send", 3, [12, 5]]]}]`,
			[]string{"0 invoke p0 send send(3,5) t=10", "1 ok p0 send send(3,5)@12 t=20"}},
		{"JSON lines - parses",
			"{\"index\":0,\"type\":\"invoke\",\"process\":1,\"f\":\"poll\",\"value\":[[\"poll\"]]}\n{\"index\":1,\"type\":\"ok\",\"process\":1,\"f\":\"poll\",\"value\":[[\"poll\",{\"3\":[[12,5],[13,6]],\"4\":[]}]]}\n",
			[]string{"0 invoke p1 poll poll", "1 ok p1 poll poll{\"3\":[12=5 13=6] \"4\":[]}"}},
		{"JSON colon names - same as plain",
			`[{"type": ":ok", "process": 0, "f": ":send", "value": [[":send", 3, [1, 2]], [":poll", null]]},
{"type": "ok", "process": 0, "f": "send", "value": [["send", 3, [1, 2]], ["poll", null]]}]`,
			[]string{"0 ok p0 send send(3,2)@1 poll{}", "1 ok p0 send send(3,2)@1 poll{}"}},
		{"JSON poll key text - joins the integer key",
			`{"type": "ok", "process": 0, "f": "txn", "value": [["send", 3, [12, 5]], ["poll", {"3": [[12, 5]]}]]}`,
			[]string{"0 ok p0 txn send(3,5)@12 poll{3:[12=5]}"}},
		{"JSON poll key text first - becomes the integer key once sent",
			"{\"type\": \"ok\", \"process\": 0, \"f\": \"poll\", \"value\": [[\"poll\", {\"7\": [[0, 1]]}]]}\n{\"type\": \"ok\", \"process\": 1, \"f\": \"send\", \"value\": [[\"send\", 7, [0, 1]]]}",
			[]string{"0 ok p0 poll poll{7:[0=1]}", "1 ok p1 send send(7,1)@0"}},
		{"JSON string keys - strings",
			`{"type": "ok", "process": 0, "f": "send", "value": [["send", "9", [0, 1]], ["send", "x", [1, "v"]]]}`,
			[]string{`0 ok p0 send send("9",1)@0 send("x","v")@1`}},
		{"JSON assign and subscribe - keys",
			"{\"type\": \"invoke\", \"process\": 0, \"f\": \"assign\", \"value\": [1, \"2\"]}\n{\"type\": \"ok\", \"process\": 0, \"f\": \"subscribe\", \"value\": []}",
			[]string{`0 invoke p0 assign keys=[1 "2"]`, "1 ok p0 subscribe"}},
		{"JSON rebalance log - both spellings",
			"{\"type\": \"ok\", \"process\": 0, \"f\": \"poll\", \"value\": [[\"poll\", {}]], \"rebalance-log\": [{\"type\": \"assigned\", \"keys\": [1, 2]}]}\n{\"type\": \"ok\", \"process\": 0, \"f\": \"poll\", \"value\": [[\"poll\", {}]], \"rebalance_log\": [{\"keys\": [2, \"3\", 2]}]}",
			[]string{"0 ok p0 poll poll{} rebal=[1 2]", `1 ok p0 poll poll{} rebal=[2 "3"]`}},
		{"JSON process not an integer - not a client",
			`[{"type": "info", "process": "nemesis", "f": "start-partition", "value": {"n1": ["n2"]}}, {"type": "info", "process": null, "f": "kill", "value": "all"}]`,
			[]string{"0 info p- other:start-partition", "1 info p- other:kill"}},
		{"JSON error values - text",
			`[{"type": "info", "process": 0, "f": "poll", "error": "net-timeout"}, {"type": "info", "process": 0, "f": "poll", "error": ":net-timeout"}, {"type": "fail", "process": 0, "f": "poll", "error": {"code": 11, "text": "abort"}}]`,
			[]string{`0 info p0 poll err="net-timeout"`, `1 info p0 poll err=":net-timeout"`, `2 fail p0 poll err="{\"code\": 11, \"text\": \"abort\"}"`}},
		{"JSON list-append and rw-register micro-ops - read (elle-cli)",
			`{"index":0,"process":1,"type":"ok","f":":txn","value":[["append","x",1],["r","x",[0,1]],["r",":y",[]]]}
{"index":1,"process":2,"type":"ok","f":"txn","value":[["w",3,9],["r",3,9],["r",4,null]]}`,
			[]string{`0 ok p1 txn append("x",1) r("x",[0 1]) r(":y",[])`, "1 ok p2 txn w(3,9) r(3,9) r(4)"}},
		{"JSON no f and micro-op arrays - txn (elle-cli)",
			`[{"index":0,"process":1,"type":"invoke","value":[["append",253,1],["r",253,null]]}]`,
			[]string{"0 invoke p1 txn append(253,1) r(253)"}},
		{"JSON escapes and non-ASCII - unescaped",
			`{"type": "invoke", "process": 0, "f": "send", "value": [["send", "a\"b\\c\/d\n\t\r\b\f\u00e9\ud83d\ude00", "héllo ☃"]]}`,
			[]string{"0 invoke p0 send send(\"a\\\"b\\\\c/d\\n\\t\\r\\b\\f\u00e9\U0001F600\",\"héllo ☃\")"}},
		{"JSON lone surrogate - replacement character",
			`{"type": "invoke", "process": 0, "f": "send", "value": [["send", "\ud83d", "\ude00x"]]}`,
			[]string{"0 invoke p0 send send(\"\uFFFD\",\"\uFFFDx\")"}},
		{"JSON numbers - integers, big integers, floats",
			`{"type": "invoke", "process": 0, "f": "txn", "value": [["send", 1.5, -2], ["send", 1e3, 99999999999999999999], ["send", -0.5E-3, 0]]}`,
			[]string{"0 invoke p0 txn send(<1.5>,-2) send(<1e3>,N99999999999999999999N) send(<-0.5E-3>,0)"}},
		{"JSON true, false, null and composites - source text",
			`{"type": "invoke", "process": 0, "f": "txn", "value": [["send", true, false], ["send", [1, 2], {"a": null}]]}`,
			[]string{`0 invoke p0 txn send(<true>,<false>) send(<[1, 2]>,<{"a": null}>)`}},
		{"JSON unknown fields - skipped",
			`{"type": "ok", "x": {"a": [1, {"b": [[], {}]}]}, "process": 0, "y": null, "f": "poll", "value": [["poll", {}]], "z": [true, false, 1.5]}`,
			[]string{"0 ok p0 poll poll{}"}},
		{"JSON empty array - no ops", " [ ] ", []string{}},
		{"JSON whitespace between array and object - detected", "[ \n { \"type\" : \"invoke\" , \"process\" : 0 , \"f\" : \"poll\" } \n ]", []string{"0 invoke p0 poll"}},
	}
	readCases(t, "t.json", tests)
}

// TestJSONKeyAtoms checks the atom kept for a key first seen as a JSON
// object key and then sent to as a number.
func TestJSONKeyAtoms(t *testing.T) {
	h := readString(t, "t.json",
		"{\"type\": \"ok\", \"process\": 0, \"f\": \"poll\", \"value\": [[\"poll\", {\"7\": [[0, 1]], \"x\": []}]]}\n"+
			"{\"type\": \"ok\", \"process\": 1, \"f\": \"send\", \"value\": [[\"send\", 7, [0, 1]]]}", Options{})
	polls := h.PollsOf(&h.MopsOf(&h.Ops[0])[0])
	if got := h.KeyAtom(polls[0].Key); got != model.IntAtom(7) {
		t.Errorf("key \"7\" = %#v, want the integer 7", got)
	}
	if got := h.KeyAtom(polls[1].Key); got != model.StringAtom("x") {
		t.Errorf("key \"x\" = %#v, want the string", got)
	}
	if polls[0].Key != h.MopsOf(&h.Ops[1])[0].Key {
		t.Errorf("poll key \"7\" and send key 7 differ")
	}
	if h.ReadsOf(&polls[0])[0].Msg != h.MopsOf(&h.Ops[1])[0].Msg {
		t.Errorf("read of (7, 1) and send of (7, 1) are different messages")
	}
}

// TestJSONLines checks Op.Line in JSON.
func TestJSONLines(t *testing.T) {
	h := readString(t, "t.json", "[\n{\"type\": \"invoke\", \"process\": 0},\n\n {\"type\":\n \"ok\", \"process\": 0}]", Options{})
	if h.Line(0) != 2 || h.Line(1) != 4 {
		t.Errorf("lines %d, %d; want 2, 4", h.Line(0), h.Line(1))
	}
}
