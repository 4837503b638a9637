package ingest

import "github.com/hindsight-dev/hindsight/model"

// A RawDecoder is a ValueDecoder that can also read a claimed :value
// straight from its EDN source bytes, through a Scanner, instead of
// through a Value on the token stream: the byte-level entry point of the
// package doc's "Workload values". Ingest offers DecodeRaw an op's
// captured :value first (EDN only, and not when the fast path is off);
// DecodeRaw returns false to decline it, at any point, for anything it
// does not expect (a form the Scanner does not take, an error): what it
// wrote is then dropped and Decode reads the form, so that every error,
// its message and its position, comes from Decode alone. DecodeRaw must
// write exactly what Decode writes for a form it accepts (the same kind,
// words and keys, the keys interned in the same order), which the
// package's tests check for the decoders they install. It reads one
// form: ingest may offer it a map :value where the map stands in the
// input, with the rest of the op after it, and then takes the map as
// read only if DecodeRaw closed it and read nothing more; there the
// Scanner's Key and KeyID decline a key not yet interned, and DecodeRaw
// must then decline too (it is offered the value again once the op is
// read).
type RawDecoder interface {
	ValueDecoder
	// DecodeRaw reads the form s holds into w, as Decode would, or
	// returns false.
	DecodeRaw(field, f string, s *Scanner, w *ExtWriter) bool
}

// Scanner reads one EDN form from its source bytes for a RawDecoder: a
// cursor that takes only what the fast path takes (fastOp): maps and
// vectors, integers of at most 18 digits, keywords, strings without
// escapes, nil, true and false, separated by blanks and commas. Each
// method reads the next token, after blanks and commas, and reports false
// when it is not what the method takes, and then consumes nothing (the
// decoder declines). Every token it takes, the lexer reads the same way.
// Nothing it does allocates.
type Scanner struct {
	d   *decoder
	buf []byte
	p   int
	// For a :value read where the fast path meets it (fastClaimValue):
	// known takes only keys already interned (so that keys are numbered
	// in the input's order whatever reads them first), and the scanner
	// keeps depth, the brackets open, and end, the index after the first
	// one to close.
	known bool
	depth int
	end   int
}

// next returns the index of the next token, or -1 at the end.
func (s *Scanner) next() int { return fastNext(s.buf, s.p) }

// Byte consumes c if it is the next token: one of '{', '}', '[', ']'.
func (s *Scanner) Byte(c byte) bool {
	p := s.next()
	if p < 0 || s.buf[p] != c {
		return false
	}
	s.p = p + 1
	if c == '{' || c == '[' {
		s.depth++
	} else if s.depth--; s.depth == 0 && s.end == 0 {
		s.end = s.p
	}
	return true
}

// Keyword reads a keyword: its name, without the colon (valid until the
// decoder returns).
func (s *Scanner) Keyword() ([]byte, bool) {
	p := s.next()
	if p < 0 {
		return nil, false
	}
	k, q := fastKeyword(s.buf, p)
	if q < 0 {
		return nil, false
	}
	s.p = q
	return k[1:], true
}

// Int reads an integer, as Value.Int does.
func (s *Scanner) Int() (int64, bool) {
	p := s.next()
	if p < 0 {
		return 0, false
	}
	v, q := fastInteger(s.buf, p)
	if q < 0 {
		return 0, false
	}
	s.p = q
	return v, true
}

// Map reads a map whose keys are keywords: each is called with every
// key's name (without the colon, valid during the call) and reads the
// entry's value; it returns false to decline.
func (s *Scanner) Map(each func(key []byte) bool) bool {
	if !s.Byte('{') {
		return false
	}
	for !s.Byte('}') {
		k, ok := s.Keyword()
		if !ok || !each(k) {
			return false
		}
	}
	return true
}

// Words reads a vector of integers into w's words, as a Value.Seq of
// Value.Int would.
func (s *Scanner) Words(w *ExtWriter) bool {
	if !s.Byte('[') {
		return false
	}
	for !s.Byte(']') {
		x, ok := s.Int()
		if !ok {
			return false
		}
		w.Word(x)
	}
	return true
}

// Nil consumes nil if it is the next token.
func (s *Scanner) Nil() bool {
	p := s.next()
	if p < 0 || !fastNil(s.buf, p) {
		return false
	}
	s.p = p + 3
	return true
}

// Bool reads true or false, or nil as false, as Value.Bool does.
func (s *Scanner) Bool() (b, ok bool) {
	p := s.next()
	if p < 0 {
		return false, false
	}
	if fastNil(s.buf, p) {
		s.p = p + 3
		return false, true
	}
	for i, w := range [...]string{"false", "true"} {
		if q := p + len(w); q < len(s.buf) && string(s.buf[p:q]) == w && !symChar[s.buf[q]] {
			s.p = q
			return i == 1, true
		}
	}
	return false, false
}

// Key reads an integer, a keyword or a string, interns it as a key, as
// Value.Key does, and appends it to w's keys.
func (s *Scanner) Key(w *ExtWriter) bool {
	id, ok := s.key()
	if ok {
		w.Key(id)
	}
	return ok
}

// KeyID reads an integer, a keyword or a string and interns it as a key,
// as Key does, without appending it to a writer's keys.
func (s *Scanner) KeyID() (model.KeyID, bool) { return s.key() }

// key reads and interns a key for Key.
func (s *Scanner) key() (model.KeyID, bool) {
	p := s.next()
	if p < 0 {
		return 0, false
	}
	d := s.d
	switch c := s.buf[p]; {
	case c == '-' || c >= '0' && c <= '9':
		v, q := fastInteger(s.buf, p)
		if q < 0 || s.known {
			return 0, false
		}
		s.p = q
		return d.key(&satom{kind: model.KInt, i: v}), true
	case c == ':' || c == '"':
		kind, read := model.KKeyword, fastKeyword
		if c == '"' {
			kind, read = model.KString, fastString
		}
		t, q := read(s.buf, p)
		if q < 0 {
			return 0, false
		}
		if s.known {
			id, ok := d.b.KnownKeyBytes(t)
			s.p = q
			return id, ok
		}
		s.p = q
		return d.b.KeyBytes(kind, t), true
	}
	return 0, false
}

// Skip consumes the next form, whatever it is among those the Scanner
// takes.
func (s *Scanner) Skip() bool {
	p := s.next()
	if p < 0 {
		return false
	}
	var q int
	if c := s.buf[p]; c == '{' || c == '[' {
		q = fastFormEnd(s.buf, p)
	} else {
		q = fastAtomEnd(s.buf, p)
	}
	if q < 0 {
		return false
	}
	s.p = q
	return true
}

// done reports whether only blanks and commas are left.
func (s *Scanner) done() bool { return s.next() < 0 }

// decodeRaw offers raw, the source of the op field field (a captured
// :value, or a :rebalance-log the fast path met), claimed by decoder i,
// to rd.DecodeRaw in a record of the op being read; it reports whether
// rd read it all. When it did not, the record is dropped.
func (d *decoder) decodeRaw(rd RawDecoder, i int, field, f string, raw []byte) bool {
	hx := d.hx
	w := d.newRecord(i)
	s := &hx.scan
	*s = Scanner{d: d, buf: raw}
	ok := rd.DecodeRaw(field, f, s, w) && s.done()
	s.buf = nil
	if !ok {
		hx.dropRecord()
	}
	return ok
}
