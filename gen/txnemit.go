package gen

import "strconv"

// mopKind is the kind of a transactional micro-op.
type mopKind uint8

const (
	mAppend   mopKind = iota // [:append k v]
	mWrite                   // [:w k v]
	mReadList                // [:r k nil] / [:r k [v ...]] (list-append)
	mReadReg                 // [:r k nil] / [:r k v] (rw-register)
)

// tmop is a transactional micro-op as written.
type tmop struct {
	list  []int64 // a completed list read: the elements ([] when empty)
	key   int64
	val   int64 // the value appended or written, or a completed register read
	kind  mopKind
	done  bool // a read in completion form
	isNil bool // a completed register read of the initial state (nil)
}

func (m *tmop) isRead() bool { return m.kind >= mReadList }

// txnLine is one client op line of a transactional history.
type txnLine struct {
	index, time int64
	typ         opType
	pid         int64
	mops        []tmop
	err         string
	omitF       bool
}

// txnSyntax is how appendTxn spells an op line: the text before each field,
// and the micro-ops' words.
type txnSyntax struct {
	lineSyntax
	f, value                  string
	append, write, read, null string
	sep                       byte // between micro-ops and list elements
}

var (
	ednTxn = txnSyntax{
		lineSyntax: ednLine, f: ", :f :txn", value: ", :value [",
		append: "[:append ", write: "[:w ", read: "[:r ", null: "nil", sep: ' ',
	}
	jsonTxn = txnSyntax{
		lineSyntax: jsonLine, f: `,"f":"txn"`, value: `,"value":[`,
		append: `["append",`, write: `["w",`, read: `["r",`, null: "null", sep: ',',
	}
)

// appendTxnEDN appends l in Jepsen's EDN form, newline included.
func appendTxnEDN(b []byte, l *txnLine) []byte { return appendTxn(b, l, &ednTxn) }

// appendTxnJSON appends l as one JSON object in elle-cli's form, newline
// included.
func appendTxnJSON(b []byte, l *txnLine) []byte { return appendTxn(b, l, &jsonTxn) }

// appendTxn appends l in the syntax sy, newline included.
func appendTxn(b []byte, l *txnLine, sy *txnSyntax) []byte {
	b = sy.appendHead(b, l.index, l.time, l.typ)
	b = strconv.AppendInt(b, l.pid, 10)
	if !l.omitF {
		b = append(b, sy.f...)
	}
	b = append(b, sy.value...)
	for i := range l.mops {
		m := &l.mops[i]
		if i > 0 {
			b = append(b, sy.sep)
		}
		switch m.kind {
		case mAppend:
			b = append(b, sy.append...)
		case mWrite:
			b = append(b, sy.write...)
		default:
			b = append(b, sy.read...)
		}
		b = strconv.AppendInt(b, m.key, 10)
		b = append(b, sy.sep)
		switch {
		case !m.isRead():
			b = strconv.AppendInt(b, m.val, 10)
		case !m.done || m.isNil:
			b = append(b, sy.null...)
		case m.kind == mReadReg:
			b = strconv.AppendInt(b, m.val, 10)
		default:
			b = append(b, '[')
			for j, v := range m.list {
				if j > 0 {
					b = append(b, sy.sep)
				}
				b = strconv.AppendInt(b, v, 10)
			}
			b = append(b, ']')
		}
		b = append(b, ']')
	}
	b = append(b, ']')
	return sy.appendTail(b, l.err, false)
}
