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
	errText     bool // err is written as a string, not a keyword
}

// encoder appends one line, newline included, to buf.
type encoder func(buf []byte, l *line, groups []group, pairs []pair) []byte

// appendEDN appends l as an EDN map.
func appendEDN(b []byte, l *line, groups []group, pairs []pair) []byte {
	return appendLine(b, &ednSyntax, l, groups, pairs)
}

// appendJSON appends l as a JSON object.
func appendJSON(b []byte, l *line, groups []group, pairs []pair) []byte {
	return appendLine(b, &jsonSyntax, l, groups, pairs)
}

// appendLine appends l in the form sx spells.
func appendLine(b []byte, sx *syntax, l *line, groups []group, pairs []pair) []byte {
	b = sx.appendHead(b, l.index, l.time, l.typ)
	if l.pid < 0 {
		b = append(b, sx.nemesis...)
	} else {
		b = strconv.AppendInt(b, l.pid, 10)
	}
	b = append(b, sx.f...)
	b = append(b, fnNames[l.f]...)
	b = append(b, sx.value...)
	switch l.f {
	case fSend, fPoll, fTxn:
		b = appendMops(b, sx, l, groups, pairs)
	case fAssign, fSubscribe:
		b = appendKeys(b, sx, l.keys)
	case fStartPartition:
		if !l.nemDone || l.part == nil {
			b = append(b, sx.majority...)
			break
		}
		b = appendPartition(b, sx, l.part)
	case fStopPartition:
		if !l.nemDone {
			b = append(b, sx.null...)
		} else {
			b = append(b, sx.healed...)
		}
	default: // fCrash
		b = append(b, sx.null...)
	}
	return sx.appendTail(b, l.err, l.errText)
}

// lineSyntax is how a line's fields common to every workload are spelled:
// the text before each, and around an error.
type lineSyntax struct {
	index    string // opens the line, before its index
	time     string // before the time
	typ      string // before the type
	process  string // before the process
	errOpen  string // before an error's name
	errClose string // after it
	strOpen  string // before an error's text (a string in EDN too)
	strClose string // after it
}

// appendHead appends a line's start: its index, time, type and the text
// before its process.
func (sx *lineSyntax) appendHead(b []byte, index, time int64, typ opType) []byte {
	b = append(b, sx.index...)
	b = strconv.AppendInt(b, index, 10)
	b = append(b, sx.time...)
	b = strconv.AppendInt(b, time, 10)
	b = append(b, sx.typ...)
	b = append(b, typeNames[typ]...)
	return append(b, sx.process...)
}

// appendTail appends a line's end: its error, if any, and the newline. The
// error is a keyword's name, or with text a string's contents (no quotes or
// backslashes: nothing is escaped).
func (sx *lineSyntax) appendTail(b []byte, err string, text bool) []byte {
	switch {
	case err == "":
	case text:
		b = append(b, sx.strOpen...)
		b = append(b, err...)
		b = append(b, sx.strClose...)
	default:
		b = append(b, sx.errOpen...)
		b = append(b, err...)
		b = append(b, sx.errClose...)
	}
	return append(b, "}\n"...)
}

// syntax holds the punctuation and names that differ between the EDN and
// JSON forms of a line, so that one writer serves both.
type syntax struct {
	lineSyntax
	nemesis  string // the nemesis's process
	f        string // before the function
	value    string // before the value
	majority string // a start-partition's value before it completes
	null     string // no value
	healed   string // a completed stop-partition's value

	sep       byte   // between elements of a vector
	groupSep  string // between the keys of a map: a poll's, a partition's
	send      string // opens a send micro-op
	pollEmpty string // a poll in invocation form
	pollOpen  string // opens a completed poll and its map
	keyOpen   string // before a poll-map key
	keyClose  string // after a poll-map key, opening its pairs
	isolated  string // opens a start-partition's value and its map
	setOpen   string // after a node, opening the set of nodes it is cut from
	setClose  byte   // closes that set
}

var (
	ednLine = lineSyntax{index: "{:index ", time: ", :time ", typ: ", :type :", process: ", :process ", errOpen: ", :error :",
		strOpen: `, :error "`, strClose: `"`}
	jsonLine = lineSyntax{index: `{"index":`, time: `,"time":`, typ: `,"type":"`, process: `","process":`, errOpen: `,"error":"`, errClose: `"`,
		strOpen: `,"error":"`, strClose: `"`}

	ednSyntax = syntax{
		lineSyntax: ednLine, nemesis: ":nemesis",
		f: ", :f :", value: ", :value ", majority: ":majority", null: "nil", healed: ":network-healed",
		sep: ' ', groupSep: ", ", send: "[:send ", pollEmpty: "[:poll]", pollOpen: "[:poll {", keyClose: " [",
		isolated: "[:isolated {", setOpen: "\" #{", setClose: '}',
	}
	jsonSyntax = syntax{
		lineSyntax: jsonLine, nemesis: `"nemesis"`,
		f: `,"f":"`, value: `","value":`, majority: `"majority"`, null: "null", healed: `"network-healed"`,
		sep: ',', groupSep: ",", send: `["send",`, pollEmpty: `["poll"]`, pollOpen: `["poll",{`, keyOpen: `"`, keyClose: `":[`,
		isolated: `["isolated",{`, setOpen: `":[`, setClose: ']',
	}
)

// appendPartition writes a start-partition's completion value: each node
// (n1..n5) and the set of nodes it is isolated from.
func appendPartition(b []byte, sx *syntax, part *nemesisPart) []byte {
	b = append(b, sx.isolated...)
	for i, iso := range part {
		if i > 0 {
			b = append(b, sx.groupSep...)
		}
		b = append(b, `"n`...)
		b = strconv.AppendInt(b, int64(i+1), 10)
		b = append(b, sx.setOpen...)
		first := true
		for j := range 5 {
			if iso&(1<<j) == 0 {
				continue
			}
			if !first {
				b = append(b, sx.sep)
			}
			first = false
			b = append(b, `"n`...)
			b = strconv.AppendInt(b, int64(j+1), 10)
			b = append(b, '"')
		}
		b = append(b, sx.setClose)
	}
	return append(b, "}]"...)
}

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
