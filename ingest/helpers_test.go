package ingest

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/hindsight-dev/hindsight/model"
)

// render writes an op in a compact form for table tests:
//
//	INDEX TYPE pPROCESS F [MOP ...] {keys=[...]} {rebal=[...]} {ext(OWNER:KIND [key ...] [word ...]) ...} {err="..."} {t=TIME}
//
// where a micro-op is send(k,v) in invocation form, send(k,v)@OFF when
// completed (OFF "nil" for an unknown offset), poll, poll{k:[o=v ...] ...}
// when completed, append(k,v), w(k,v), r(k) for a nil read, r(k,v) and
// r(k,[v ...]), and other. Keys and values print with model.Atom.String,
// so strings are quoted and keywords keep their colon; KOther atoms print
// as <text> and big integers as N...N.
func render(h *model.History, op *model.Op) string {
	pos := opPos(h, op)
	var sb strings.Builder
	p := "p-"
	if op.Process == model.AnonProcess {
		p = "p?"
	} else if op.Process != model.NoProcess {
		p = "p" + strconv.Itoa(int(op.Process))
	}
	f := op.F.String()
	if op.F == model.FOther {
		f = "other:" + h.FNameOf(pos)
	}
	fmt.Fprintf(&sb, "%d %s %s %s", h.Index(pos), op.Type, p, f)
	for _, m := range effectiveMops(h, op) {
		sb.WriteByte(' ')
		switch m.Kind {
		case model.MopSend:
			fmt.Fprintf(&sb, "send(%s,%s)", atom(h.KeyAtom(m.Key)), atom(h.MsgValue(m.Msg)))
			if h.MsgKey(m.Msg) != m.Key {
				sb.WriteString("!key-mismatch")
			}
			if m.Done {
				sb.WriteString("@" + offset(h.Offset(&m)))
			}
		case model.MopPoll:
			sb.WriteString("poll")
			if m.Done {
				sb.WriteByte('{')
				for i, kp := range h.PollsOf(&m) {
					if i > 0 {
						sb.WriteByte(' ')
					}
					sb.WriteString(atom(h.KeyAtom(kp.Key)) + ":[")
					for j, r := range h.ReadsOf(&kp) {
						if j > 0 {
							sb.WriteByte(' ')
						}
						sb.WriteString(offset(r.Offset()) + "=" + atom(h.MsgValue(r.Msg)))
						if h.MsgKey(r.Msg) != kp.Key {
							sb.WriteString("!key-mismatch")
						}
					}
					sb.WriteByte(']')
				}
				sb.WriteByte('}')
			}
		case model.MopAppend, model.MopWrite:
			fmt.Fprintf(&sb, "%s(%s,%s)", m.Kind, atom(h.KeyAtom(m.Key)), atom(h.MsgValue(m.Msg)))
		case model.MopRead:
			if m.Done {
				fmt.Fprintf(&sb, "r(%s,%s)", atom(h.KeyAtom(m.Key)), atom(h.MsgValue(m.Msg)))
			} else {
				fmt.Fprintf(&sb, "r(%s)", atom(h.KeyAtom(m.Key)))
			}
		case model.MopReadList:
			es := h.ElemsOf(&m)
			parts := make([]string, len(es))
			for j, e := range es {
				parts[j] = atom(h.MsgValue(e))
				if h.MsgKey(e) != m.Key {
					parts[j] += "!key-mismatch"
				}
			}
			fmt.Fprintf(&sb, "r(%s,[%s])", atom(h.KeyAtom(m.Key)), strings.Join(parts, " "))
		case model.MopOther:
			sb.WriteString("other")
		}
	}
	if len(h.KeysOf(pos)) > 0 {
		sb.WriteString(" keys=" + keys(h, h.KeysOf(pos)))
	}
	if len(h.RebalanceOf(pos)) > 0 {
		sb.WriteString(" rebal=" + keys(h, h.RebalanceOf(pos)))
	}
	var ext []model.ExtRec
	if i := opPos(h, op); i >= 0 {
		ext = h.ExtAt(i)
	}
	for _, r := range ext {
		fmt.Fprintf(&sb, " ext(%s:%d %s %v)", h.ExtOwners[r.Owner-1], r.Kind, keys(h, h.ExtKeysOf(&r)), h.ExtWordsOf(&r))
	}
	if h.ErrorOf(pos) != "" {
		sb.WriteString(" err=" + strconv.Quote(h.ErrorOf(pos)))
	}
	if t := h.Time(pos); t != model.NoTime {
		sb.WriteString(" t=" + strconv.FormatInt(t, 10))
	}
	return sb.String()
}

func keys(h *model.History, ks []model.KeyID) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = atom(h.KeyAtom(k))
	}
	return "[" + strings.Join(s, " ") + "]"
}

func atom(a model.Atom) string {
	switch a.Kind {
	case model.KOther:
		return "<" + a.Text + ">"
	case model.KBigInt:
		return "N" + a.Text + "N"
	}
	return a.String()
}

func offset(o int64) string {
	if o == model.NoOffset {
		return "nil"
	}
	return strconv.FormatInt(o, 10)
}

func renderAll(h *model.History) []string {
	out := make([]string, len(h.Ops))
	for i := range h.Ops {
		out[i] = render(h, &h.Ops[i])
	}
	return out
}

// readString reads src as the file name with the given options, failing the
// test on error.
func readString(t *testing.T, name, src string, opts Options) *model.History {
	t.Helper()
	h, err := Read(strings.NewReader(src), name, opts)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return h
}

// equalLines compares rendered ops with what is expected, line by line.
func equalLines(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("got %d ops, want %d:\n got: %s\nwant: %s", len(got), len(want),
			strings.Join(got, "\n      "), strings.Join(want, "\n      "))
		return
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("op %d:\n got: %s\nwant: %s", i, got[i], want[i])
		}
	}
}

// asError checks that err is an *Error and returns it.
func asError(t *testing.T, err error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	return e
}

// checkHistory checks the invariants every history must keep: all ids in
// range, messages of sends and reads on the key they are under.
func checkHistory(h *model.History) error {
	for i := range h.Ops {
		op := &h.Ops[i]
		for _, m := range h.MopsOf(op) {
			if m.Kind == model.MopSend {
				if int(m.Key) >= len(h.Keys) || int(m.Msg) >= len(h.Msgs) || h.Msgs[m.Msg].Key != m.Key {
					return fmt.Errorf("op %d: bad send ids", i)
				}
			}
			for _, kp := range h.PollsOf(&m) {
				if int(kp.Key) >= len(h.Keys) {
					return fmt.Errorf("op %d: bad poll key", i)
				}
				for _, r := range h.ReadsOf(&kp) {
					if int(r.Msg) >= len(h.Msgs) || h.Msgs[r.Msg].Key != kp.Key {
						return fmt.Errorf("op %d: bad read msg", i)
					}
				}
			}
		}
		for _, k := range append(append([]model.KeyID(nil), h.KeysOf(i)...), h.RebalanceOf(i)...) {
			if int(k) >= len(h.Keys) {
				return fmt.Errorf("op %d: bad key", i)
			}
		}
	}
	for _, m := range h.Msgs {
		if int(m.Key) >= len(h.Keys) || int(m.Val) >= len(h.Values) {
			return fmt.Errorf("bad msg %v", m)
		}
	}
	return nil
}

// replay checks that the decoder's interning, caches included, gave one id
// per distinct key, value and message: interning h's atoms again through a
// fresh model.Builder, in id order, must give each the same id. (Ids of
// values that only a dropped invocation form used stay in the tables; that
// is fine as long as none is interned twice.)
func replay(h *model.History) error {
	b := model.NewBuilder("replay")
	for k := range h.Keys {
		if got := b.Key(h.Keys[k]); got != model.KeyID(k) {
			return fmt.Errorf("key %v: id %d, builder says %d", h.Keys[k], k, got)
		}
	}
	for v := range h.Values {
		if got := b.Value(h.Values[v]); got != model.ValID(v) {
			return fmt.Errorf("value %v: id %d, builder says %d", h.Values[v], v, got)
		}
	}
	for m, mm := range h.Msgs {
		if got := b.Msg(mm.Key, mm.Val); got != model.MsgID(m) {
			return fmt.Errorf("message %d (%v): builder says %d", m, mm, got)
		}
	}
	return nil
}

var (
	pairingsMu sync.Mutex
	pairings   = map[*model.History]model.Pairing{}
)

// effectiveMops returns op's micro-ops as the history has them: an
// invocation whose micro-ops ingest dropped gets the invocation form of its
// completion's (model.History.InvocationMops), so tests compare what was in
// the file.
func effectiveMops(h *model.History, op *model.Op) []model.Mop {
	if op.Type != model.Invoke || !op.Mops.Empty() || len(h.Ops) == 0 {
		return h.MopsOf(op)
	}
	pairingsMu.Lock()
	p, ok := pairings[h]
	if !ok {
		p, _ = model.Pair(h) // a malformed history still pairs what it can
		pairings[h] = p
	}
	pairingsMu.Unlock()
	i := opPos(h, op)
	if i < 0 {
		return h.MopsOf(op)
	}
	return h.InvocationMops(i, p)
}

// opPos is the position of op in h.Ops; -1 when it is not there.
func opPos(h *model.History, op *model.Op) int {
	if len(h.Ops) == 0 {
		return -1
	}
	i := int((uintptr(unsafe.Pointer(op)) - uintptr(unsafe.Pointer(&h.Ops[0]))) / unsafe.Sizeof(*op))
	if i < 0 || i >= len(h.Ops) || &h.Ops[i] != op {
		return -1
	}
	return i
}
