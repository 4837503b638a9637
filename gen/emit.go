package gen

import "strconv"

// opType is the :type of a line.
type opType uint8

const (
	tInvoke opType = iota
	tOK
	tInfo
	tFail
)

var typeNames = [...]string{"invoke", "ok", "info", "fail"}

// fn is the :f of a line.
type fn uint8

const (
	fSend fn = iota
	fPoll
	fTxn
	fAssign
	fSubscribe
	fCrash
	fStartPartition
	fStopPartition
)

var fnNames = [...]string{"send", "poll", "txn", "assign", "subscribe", "crash", "start-partition", "stop-partition"}

// mop is a micro-op as written: a send or a poll, in invocation or
// completion form.
type mop struct {
	send bool
	key  int32
	val  int64
	off  int64 // offset of an acknowledged send
	done bool  // completion form: [:send k [off v]] or [:poll {...}]
	// g0, g1: the poll's key groups, s.groups[g0:g1]
	g0, g1 int32
}

// group is what one poll micro-op returned for one key: pairs[p0:p1].
type group struct {
	key    int32
	p0, p1 int32
}

// pair is one [offset value] read by a poll.
type pair struct{ off, val int64 }

// nemesisPart is the partition a start-partition completion reports: node
// i (n1..n5) is isolated from the nodes whose bit is set in part[i].
type nemesisPart [5]uint8

// line is one op line to encode.
type line struct {
	index, time int64
	typ         opType
	pid         int64 // -1: the nemesis
	f           fn
	mops        []mop
	keys        []int32
	part        *nemesisPart // start-partition completion
	nemDone     bool         // a nemesis completion (nemesis invocations are :info too)
	err         string
}

// encoder appends one line, newline included, to buf.
type encoder func(buf []byte, l *line, groups []group, pairs []pair) []byte

func appendEDN(b []byte, l *line, groups []group, pairs []pair) []byte {
	b = append(b, "{:index "...)
	b = strconv.AppendInt(b, l.index, 10)
	b = append(b, ", :time "...)
	b = strconv.AppendInt(b, l.time, 10)
	b = append(b, ", :type :"...)
	b = append(b, typeNames[l.typ]...)
	b = append(b, ", :process "...)
	if l.pid < 0 {
		b = append(b, ":nemesis"...)
	} else {
		b = strconv.AppendInt(b, l.pid, 10)
	}
	b = append(b, ", :f :"...)
	b = append(b, fnNames[l.f]...)
	b = append(b, ", :value "...)
	switch l.f {
	case fSend, fPoll, fTxn:
		b = appendMops(b, &ednSyntax, l, groups, pairs)
	case fAssign, fSubscribe:
		b = appendKeys(b, &ednSyntax, l.keys)
	case fStartPartition:
		if !l.nemDone || l.part == nil {
			b = append(b, ":majority"...)
			break
		}
		b = append(b, "[:isolated {"...)
		for i, iso := range l.part {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, "\"n"...)
			b = strconv.AppendInt(b, int64(i+1), 10)
			b = append(b, "\" #{"...)
			first := true
			for j := range 5 {
				if iso&(1<<j) == 0 {
					continue
				}
				if !first {
					b = append(b, ' ')
				}
				first = false
				b = append(b, "\"n"...)
				b = strconv.AppendInt(b, int64(j+1), 10)
				b = append(b, '"')
			}
			b = append(b, '}')
		}
		b = append(b, "}]"...)
	case fStopPartition:
		if !l.nemDone {
			b = append(b, "nil"...)
		} else {
			b = append(b, ":network-healed"...)
		}
	default: // fCrash
		b = append(b, "nil"...)
	}
	if l.err != "" {
		b = append(b, ", :error :"...)
		b = append(b, l.err...)
	}
	return append(b, "}\n"...)
}

func appendJSON(b []byte, l *line, groups []group, pairs []pair) []byte {
	b = append(b, `{"index":`...)
	b = strconv.AppendInt(b, l.index, 10)
	b = append(b, `,"time":`...)
	b = strconv.AppendInt(b, l.time, 10)
	b = append(b, `,"type":"`...)
	b = append(b, typeNames[l.typ]...)
	b = append(b, `","process":`...)
	if l.pid < 0 {
		b = append(b, `"nemesis"`...)
	} else {
		b = strconv.AppendInt(b, l.pid, 10)
	}
	b = append(b, `,"f":"`...)
	b = append(b, fnNames[l.f]...)
	b = append(b, `","value":`...)
	switch l.f {
	case fSend, fPoll, fTxn:
		b = appendMops(b, &jsonSyntax, l, groups, pairs)
	case fAssign, fSubscribe:
		b = appendKeys(b, &jsonSyntax, l.keys)
	case fStartPartition:
		if !l.nemDone || l.part == nil {
			b = append(b, `"majority"`...)
			break
		}
		b = append(b, `["isolated",{`...)
		for i, iso := range l.part {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `"n`...)
			b = strconv.AppendInt(b, int64(i+1), 10)
			b = append(b, `":[`...)
			first := true
			for j := range 5 {
				if iso&(1<<j) == 0 {
					continue
				}
				if !first {
					b = append(b, ',')
				}
				first = false
				b = append(b, `"n`...)
				b = strconv.AppendInt(b, int64(j+1), 10)
				b = append(b, '"')
			}
			b = append(b, ']')
		}
		b = append(b, "}]"...)
	case fStopPartition:
		if !l.nemDone {
			b = append(b, "null"...)
		} else {
			b = append(b, `"network-healed"`...)
		}
	default:
		b = append(b, "null"...)
	}
	if l.err != "" {
		b = append(b, `,"error":"`...)
		b = append(b, l.err...)
		b = append(b, '"')
	}
	return append(b, "}\n"...)
}

// syntax holds the punctuation that differs between the EDN and JSON forms
// of micro-ops, so that one writer serves both.
type syntax struct {
	sep       byte   // between elements of a vector
	groupSep  string // between the keys of a poll map
	send      string // opens a send micro-op
	pollEmpty string // a poll in invocation form
	pollOpen  string // opens a completed poll and its map
	keyOpen   string // before a poll-map key
	keyClose  string // after a poll-map key, opening its pairs
}

var (
	ednSyntax  = syntax{' ', ", ", "[:send ", "[:poll]", "[:poll {", "", " ["}
	jsonSyntax = syntax{',', ",", `["send",`, `["poll"]`, `["poll",{`, `"`, `":[`}
)

// appendMops writes the micro-ops of l as a vector.
func appendMops(b []byte, sx *syntax, l *line, groups []group, pairs []pair) []byte {
	pair := func(b []byte, off, val int64) []byte {
		b = append(b, '[')
		b = strconv.AppendInt(b, off, 10)
		b = append(b, sx.sep)
		b = strconv.AppendInt(b, val, 10)
		return append(b, ']')
	}
	b = append(b, '[')
	for i := range l.mops {
		m := &l.mops[i]
		if i > 0 {
			b = append(b, sx.sep)
		}
		if m.send {
			b = append(b, sx.send...)
			b = strconv.AppendInt(b, int64(m.key), 10)
			b = append(b, sx.sep)
			if m.done {
				b = pair(b, m.off, m.val)
			} else {
				b = strconv.AppendInt(b, m.val, 10)
			}
			b = append(b, ']')
			continue
		}
		if !m.done {
			b = append(b, sx.pollEmpty...)
			continue
		}
		b = append(b, sx.pollOpen...)
		for gi, g := range groups[m.g0:m.g1] {
			if gi > 0 {
				b = append(b, sx.groupSep...)
			}
			b = append(b, sx.keyOpen...)
			b = strconv.AppendInt(b, int64(g.key), 10)
			b = append(b, sx.keyClose...)
			for pi, p := range pairs[g.p0:g.p1] {
				if pi > 0 {
					b = append(b, sx.sep)
				}
				b = pair(b, p.off, p.val)
			}
			b = append(b, ']')
		}
		b = append(b, "}]"...)
	}
	return append(b, ']')
}

// appendKeys writes the keys of an assign or subscribe as a vector.
func appendKeys(b []byte, sx *syntax, keys []int32) []byte {
	b = append(b, '[')
	for i, k := range keys {
		if i > 0 {
			b = append(b, sx.sep)
		}
		b = strconv.AppendInt(b, int64(k), 10)
	}
	return append(b, ']')
}
