package shrink

import (
	"bufio"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hindsight-dev/hindsight/model"
)

// ValueEDN renders a workload's own values of the op at position pos of h
// (what its ingest decoder read: model.ExtRec) as EDN: the op's :value, and
// its other fields as ", :name value" pairs. ok is false when the
// workload read nothing of the op (the op's micro-ops are written then).
type ValueEDN func(h *model.History, pos int) (value, fields string, ok bool)

// WriteEDN writes the ops of h at the given positions (ascending) as a
// Jepsen history, one op map per line, keeping their :index values so they
// can be found in the original. An invocation whose micro-ops were not kept
// is written in the invocation form of its completion's micro-ops. Ops of
// non-client processes are written with :process :nemesis. values (nil:
// none) writes the values a workload decoded itself.
func WriteEDN(w io.Writer, h *model.History, p model.Pairing, positions []int32, values ValueEDN) error {
	bw := bufio.NewWriter(w)
	var buf []byte
	for _, pos := range positions {
		buf = appendOp(buf[:0], h, p, pos, values)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func appendOp(b []byte, h *model.History, p model.Pairing, pos int32, values ValueEDN) []byte {
	op := &h.Ops[pos]
	b = append(b, "{:index "...)
	b = strconv.AppendInt(b, h.Index(int(pos)), 10)
	if t := h.Time(int(pos)); t != model.NoTime {
		b = append(b, ", :time "...)
		b = strconv.AppendInt(b, t, 10)
	}
	b = append(b, ", :type :"...)
	b = append(b, op.Type.String()...)
	switch {
	case op.Process == model.AnonProcess: // as in the source: no :process
	case op.IsClient():
		b = append(b, ", :process "...)
		b = strconv.AppendInt(b, int64(op.Process), 10)
	default:
		b = append(b, ", :process :nemesis"...)
	}
	b = append(b, ", :f :"...)
	if op.F == model.FOther {
		b = append(b, h.FNameOf(int(pos))...)
	} else {
		b = append(b, op.F.String()...)
	}
	b = append(b, ", :value "...)
	var fields string
	if v, f, ok := workloadValue(h, pos, values); ok {
		b, fields = append(b, v...), f
	} else {
		b = appendValue(b, h, p, pos)
	}
	b = append(b, fields...)
	if e := h.ErrorOf(int(pos)); e != "" {
		b = append(b, ", :error "...)
		b = appendError(b, e)
	}
	return append(b, '}')
}

// workloadValue is what values renders of the op at pos, if anything.
func workloadValue(h *model.History, pos int32, values ValueEDN) (value, fields string, ok bool) {
	if values == nil {
		return "", "", false
	}
	return values(h, int(pos))
}

// appendValue appends the :value of the op at pos from what ingest
// decoded: an assign's or subscribe's keys, else the invocation form of
// its micro-ops, else nil.
func appendValue(b []byte, h *model.History, p model.Pairing, pos int32) []byte {
	op := &h.Ops[pos]
	if op.F == model.FAssign || op.F == model.FSubscribe {
		b = append(b, '[')
		for i, k := range h.KeysOf(int(pos)) {
			if i > 0 {
				b = append(b, ' ')
			}
			b = appendAtom(b, h.Keys[k])
		}
		return append(b, ']')
	}
	if mops := h.InvocationMops(int(pos), p); len(mops) > 0 {
		return appendMops(b, h, mops)
	}
	return append(b, "nil"...)
}

func appendMops(b []byte, h *model.History, mops []model.Mop) []byte {
	b = append(b, '[')
	for i, m := range mops {
		if i > 0 {
			b = append(b, ' ')
		}
		switch m.Kind {
		case model.MopSend:
			b = append(b, "[:send "...)
			b = appendAtom(b, h.Keys[m.Key])
			b = append(b, ' ')
			if m.Done {
				b = append(b, '[')
				if off := h.Offset(&m); off == model.NoOffset {
					b = append(b, "nil"...)
				} else {
					b = strconv.AppendInt(b, off, 10)
				}
				b = append(b, ' ')
				b = appendAtom(b, h.MsgValue(m.Msg))
				b = append(b, ']')
			} else {
				b = appendAtom(b, h.MsgValue(m.Msg))
			}
			b = append(b, ']')
		case model.MopPoll:
			if !m.Done {
				b = append(b, "[:poll]"...)
				continue
			}
			b = append(b, "[:poll {"...)
			for j, kp := range h.PollsOf(&m) {
				if j > 0 {
					b = append(b, ", "...)
				}
				b = appendAtom(b, h.Keys[kp.Key])
				b = append(b, " ["...)
				for r, rd := range h.ReadsOf(&kp) {
					if r > 0 {
						b = append(b, ' ')
					}
					b = append(b, '[')
					b = strconv.AppendInt(b, rd.Offset(), 10)
					b = append(b, ' ')
					b = appendAtom(b, h.MsgValue(rd.Msg))
					b = append(b, ']')
				}
				b = append(b, ']')
			}
			b = append(b, "}]"...)
		case model.MopAppend, model.MopWrite:
			b = append(b, "[:"...)
			b = append(b, m.Kind.String()...)
			b = append(b, ' ')
			b = appendAtom(b, h.Keys[m.Key])
			b = append(b, ' ')
			b = appendAtom(b, h.MsgValue(m.Msg))
			b = append(b, ']')
		case model.MopRead, model.MopReadList:
			b = append(b, "[:r "...)
			b = appendAtom(b, h.Keys[m.Key])
			b = append(b, ' ')
			switch {
			case m.Kind == model.MopReadList:
				b = append(b, '[')
				for j, e := range h.ElemsOf(&m) {
					if j > 0 {
						b = append(b, ' ')
					}
					b = appendAtom(b, h.MsgValue(e))
				}
				b = append(b, ']')
			case m.Done:
				b = appendAtom(b, h.MsgValue(m.Msg))
			default:
				b = append(b, "nil"...)
			}
			b = append(b, ']')
		default:
			b = append(b, "[:unknown]"...)
		}
	}
	return append(b, ']')
}

func appendAtom(b []byte, a model.Atom) []byte {
	switch a.Kind {
	case model.KInt:
		return strconv.AppendInt(b, a.Int, 10)
	case model.KString:
		return appendString(b, a.Text)
	}
	return append(b, a.Text...)
}

// appendError writes an op's :error text. Ingest keeps a keyword's text
// with its colon and a string's without its quotes, so a text that reads
// as a plain keyword is written as one (:intentional-abort stays a
// keyword; a string such as ":x" would become one, which no checker
// tells apart), and anything else as a string (a vector's or map's
// source text among them).
func appendError(b []byte, e string) []byte {
	if keywordText(e) {
		return append(b, e...)
	}
	return appendString(b, e)
}

// keywordText reports whether s is a plain EDN keyword: a colon, then
// ASCII symbol characters only (no second colon first: ::k is
// namespace-resolved in Clojure).
func keywordText(s string) bool {
	if len(s) < 2 || s[0] != ':' || s[1] == ':' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("{}[]()\";\\,#@~^`'", c) >= 0 {
			return false
		}
	}
	return true
}

// appendString writes s as an EDN string literal.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"':
			b = append(b, `\"`...)
		case r == '\\':
			b = append(b, `\\`...)
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r < 0x20 || r == utf8.RuneError && size == 1:
			b = append(b, `\u`...)
			h := strconv.FormatInt(int64(r), 16)
			for len(h) < 4 {
				h = "0" + h
			}
			b = append(b, h...)
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
