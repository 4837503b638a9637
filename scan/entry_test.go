package scan

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/check"
	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
)

// entryRows are anomaly rows of every shape an entry holds: with and
// without a key, lists empty and not, negative and large witnesses, text
// that JSON escapes and text that is not valid UTF-8.
func entryRows() []AnomalyRow {
	k1, k2 := `":x"`, "\"k\\u003cey\xff\""
	return []AnomalyRow{
		{Type: "garbage-read", Key: &k1, Values: []string{"1"}, Skipped: []string{}, Witness: []int64{0, 1}, Bad: true, Instance: `{"key":":x"}`},
		{Type: "G1c", Values: []string{}, Skipped: []string{}, Witness: []int64{}, Instance: `{}`},
		{Type: "poll-skip", Key: &k2, Values: []string{"2", `"a\"b"`}, Skipped: []string{"3", "4", "5"}, Witness: []int64{-1, 1 << 40, 1<<63 - 1}, Bad: true, Instance: strings.Repeat("é", 300)},
		{Type: "", Values: []string{""}, Skipped: []string{}, Witness: []int64{7}, Instance: ""},
	}
}

func encodedEntry(t testing.TB, row *HistoryRow, anoms []AnomalyRow) []byte {
	var buf bytes.Buffer
	if err := encodeEntry(&buf, row, rowSlice(anoms)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestEntryRoundTrip: an entry decodes to the rows it was made of, and its
// head alone to the history row and the count of bad rows.
func TestEntryRoundTrip(t *testing.T) {
	row := HistoryRow{Path: "runs/1/history.edn", SizeBytes: 12, Verdict: VerdictInvalid, BadTypes: []string{"G1c"},
		Counts: map[string]int64{"G1c": 1}, UnknownReasons: []string{}, AnomalyTypes: []string{"G1c"}, Warnings: []string{}}
	for _, anoms := range [][]AnomalyRow{entryRows(), {}} {
		b := encodedEntry(t, &row, anoms)
		e, err := decodeEntry(bytes.Clone(b))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(e.Row, row) || !reflect.DeepEqual(e.Anomalies, anoms) || e.Bad != countBad(anoms) {
			t.Errorf("decoded %+v\nwant row %+v, rows %+v", e, row, anoms)
		}
		h, rows, err := readEntryHead(bufio.NewReader(bytes.NewReader(b)))
		if err != nil || !reflect.DeepEqual(h.Row, row) || h.Bad != countBad(anoms) || rows != int64(len(anoms)) || h.Anomalies != nil {
			t.Errorf("head %+v, %d rows, %v", h, rows, err)
		}
	}
}

// TestEntryCorrupt: an entry cut anywhere, or with any byte changed, is a
// miss (an error), never a panic or a huge allocation; the rows' region
// is checked to its end, so a change there is caught too.
func TestEntryCorrupt(t *testing.T) {
	row := HistoryRow{Path: "p", Verdict: VerdictValid}
	b := encodedEntry(t, &row, entryRows())
	for n := range len(b) {
		if _, err := decodeEntry(bytes.Clone(b[:n])); err == nil {
			t.Errorf("an entry cut to %d of %d bytes decoded", n, len(b))
		}
	}
	if _, err := decodeEntry(append(bytes.Clone(b), 0)); err == nil {
		t.Error("an entry with a trailing byte decoded")
	}
	for i := range b {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			c := bytes.Clone(b)
			c[i] ^= x
			e, err := decodeEntry(c) // a change in a string's bytes decodes: only no panic is asked
			if err == nil && len(e.Anomalies) != len(entryRows()) {
				t.Errorf("byte %d ^ %#x: %d rows decoded", i, x, len(e.Anomalies))
			}
		}
	}
	if _, err := decodeEntry([]byte("{not json")); err == nil {
		t.Error("an old JSON entry decoded")
	}
}

// TestAnomalyRowJSON: the rows anomalyRow builds through the instances'
// own JSON appenders are the ones encoding/json gives (json.Marshal, HTML
// escaping included), for every instance of the specification fixtures
// and for keys and values that hold '<', '>' and '&'; and a result's rows
// count and count their bad ones without being built as they are when
// built.
func TestAnomalyRowJSON(t *testing.T) {
	var files []string
	for _, w := range []string{"queue", "list-append", "rw-register", "abort"} {
		m, _ := filepath.Glob(testpaths.Testdata(w, "*.edn"))
		files = append(files, m...)
	}
	files = append(files, "") // the one below
	rows, escaped := 0, 0
	for _, f := range files {
		var h = f
		var opts ingest.Options
		var res *analysis.Result
		var err error
		if f == "" {
			h = "escapes.edn"
			hist, rerr := ingest.Read(strings.NewReader(`{:index 0, :type :invoke, :process 0, :f :txn, :value [[:r "<&>" nil]]}
{:index 1, :type :ok, :process 0, :f :txn, :value [[:r "<&>" ["a<b" "c&d"]]]}
`), h, opts)
			if rerr != nil {
				t.Fatal(rerr)
			}
			res, err = check.History(hist, check.Options{})
		} else {
			res, _, err = check.File(f, check.Options{})
		}
		if err != nil {
			continue // an input error: no rows
		}
		_, ar := rowsOf(h, 1, "", false, res, 0)
		all, err := allRows(ar)
		if err != nil || ar.count() != int64(len(all)) || ar.bad() != countBad(all) {
			t.Errorf("%s: %d rows, %d bad; built %d, %d bad (%v)", h, ar.count(), ar.bad(), len(all), countBad(all), err)
		}
		checkEncoded(t, h, ar, all)
		for typ, ins := range res.Anomalies {
			for _, in := range ins {
				got, err := anomalyRow(h, typ, in, true)
				if err != nil {
					t.Fatal(err)
				}
				want := referenceRow(t, h, typ, in)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s %s:\ngot  %+v\nwant %+v", h, typ, got, want)
				}
				rows++
				if strings.Contains(want.Instance, `\u003c`) {
					escaped++
				}
			}
		}
	}
	if rows < 100 || escaped == 0 {
		t.Errorf("only %d rows compared, %d with an escaped '<'", rows, escaped)
	}
}

// referenceRow is anomalyRow with encoding/json for every field.
func referenceRow(t *testing.T, path, typ string, in analysis.Instance) AnomalyRow {
	ev := in.InstanceEvidence()
	a := AnomalyRow{Path: path, Type: typ, Values: []string{}, Skipped: []string{}, Witness: nonNil(ev.Witness), Bad: !ev.Allowed}
	js := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if key := in.InstanceKey(); key != nil {
		s := js(key)
		a.Key = &s
	}
	full := analysis.Full(in)
	if l, ok := full.(analysis.Listed); ok {
		values, skipped := l.ListedValues()
		for _, v := range values {
			a.Values = append(a.Values, js(v))
		}
		for _, v := range skipped {
			a.Skipped = append(a.Skipped, js(v))
		}
	}
	a.Instance = js(full)
	return a
}

// BenchmarkEntryCodec writes an entry of 300k garbage-read rows and reads
// them back as a scan writing its tables does, a row at a time
// (entry.go's figures come from a benchmark of this shape).
func BenchmarkEntryCodec(b *testing.B) {
	const n = 300_000
	anoms := make([]AnomalyRow, n)
	for i := range anoms {
		k := fmt.Sprint(i % 1000)
		anoms[i] = AnomalyRow{Type: "garbage-read", Key: &k, Values: []string{fmt.Sprint(i * 7)}, Skipped: []string{},
			Witness: []int64{int64(2 * i), int64(2*i + 1)}, Bad: true,
			Instance: fmt.Sprintf(`{"key":%d,"op":%d,"mop":[":r",%d,%d],"value":%d,"witness":[%d,%d]}`, i%1000, 2*i+1, i%1000, i*7, i*7, 2*i, 2*i+1)}
	}
	row := HistoryRow{Path: "storm.edn", Verdict: VerdictInvalid}
	for b.Loop() {
		buf := encodedEntry(b, &row, anoms)
		read := 0
		if _, err := readEntryRows(bytes.NewReader(buf[:len(buf)-entryTrailer]), func(*AnomalyRow) error {
			read++
			return nil
		}); err != nil || read != n {
			b.Fatal(read, err)
		}
		b.ReportMetric(float64(len(buf))/n, "B/row")
	}
}

// TestCacheHeadSeesCuts: the head alone is read for a cached history, and
// an entry cut or grown since it was written is a miss there too, not an
// error when the tables are written.
func TestCacheHeadSeesCuts(t *testing.T) {
	c := &cache{dir: t.TempDir()}
	key := c.key(strings.Repeat("ab", 32))
	row := HistoryRow{Path: "p", Verdict: VerdictInvalid}
	rows := entryRows()
	if err := c.put(key, &row, rowSlice(rows)); err != nil {
		t.Fatal(err)
	}
	if e, ok := c.head(key); !ok || e.Bad != countBad(rows) || e.Row.Path != "p" {
		t.Fatalf("head %+v, %v", e, ok)
	}
	if e, ok := c.get(key); !ok || len(e.Anomalies) != len(rows) {
		t.Fatalf("get %+v, %v", e, ok)
	}
	b, err := os.ReadFile(c.path(key))
	if err != nil {
		t.Fatal(err)
	}
	for _, changed := range [][]byte{b[:len(b)-1], b[:len(b)-entryTrailer-3], append(bytes.Clone(b), '\n')} {
		if err := os.WriteFile(c.path(key), changed, 0o644); err != nil {
			t.Fatal(err)
		}
		_, okHead := c.head(key)
		_, okGet := c.get(key)
		if okHead || okGet {
			t.Errorf("an entry of %d bytes (written %d): head %v, get %v; want misses", len(changed), len(b), okHead, okGet)
		}
	}
}

// rawAppender appends its JSON without HTML escaping, as abort's fixed
// words are written: marshal must not take that for json.Marshal's.
type rawAppender struct {
	S string `json:"s"`
}

func (r rawAppender) AppendJSON(b []byte) []byte { return append(b, `{"s":"`+r.S+`"}`...) }

// TestMarshalEscapesAsJSONMarshal: marshal takes an appender's JSON only
// when it holds none of '<', '>' and '&', which json.Marshal escapes.
func TestMarshalEscapesAsJSONMarshal(t *testing.T) {
	for _, s := range []string{"plain", "a<b", "c&d", "e>f"} {
		got, err := marshal(nil, rawAppender{s})
		want, _ := json.Marshal(rawAppender{s})
		if err != nil || string(got) != string(want) {
			t.Errorf("marshal(%q) = %s, %v; want %s", s, got, err, want)
		}
	}
}

// TestEntryRowsThroughWindow: an entry larger than the window its rows are
// read through, with rows that straddle its refills and one longer than
// the window, reads back whole from the cache (cache.eachRow) and through a
// reader that gives one byte at a time; cut near a refill it is an error,
// and with a byte changed an error or every row, never a panic.
func TestEntryRowsThroughWindow(t *testing.T) {
	var anoms []AnomalyRow
	for i := range 12000 {
		k := fmt.Sprint(i % 97)
		anoms = append(anoms, AnomalyRow{Type: "poll-skip", Key: &k, Values: []string{fmt.Sprint(i)}, Skipped: []string{"1", "2"},
			Witness: []int64{int64(i), int64(i + 1)}, Bad: i%3 == 0, Instance: strings.Repeat(fmt.Sprint(i%10), 100+i%300)})
		if i == 5000 {
			anoms = append(anoms, AnomalyRow{Type: "long", Values: []string{}, Skipped: []string{}, Witness: []int64{},
				Instance: strings.Repeat("x", 3*windowMin)})
		}
	}
	row := HistoryRow{Path: "p", Verdict: VerdictInvalid}
	b := encodedEntry(t, &row, anoms)
	if len(b) < 4*windowMin {
		t.Fatalf("an entry of %d bytes: too small for the test", len(b))
	}
	c := &cache{dir: t.TempDir()}
	key := c.key(strings.Repeat("cd", 32))
	if err := c.put(key, &row, rowSlice(anoms)); err != nil {
		t.Fatal(err)
	}
	i := 0
	if err := c.eachRow(key, func(a *AnomalyRow) error {
		if i >= len(anoms) || !reflect.DeepEqual(*a, anoms[i]) {
			return fmt.Errorf("row %d differs", i)
		}
		i++
		return nil
	}); err != nil || i != len(anoms) {
		t.Fatalf("%d rows read back of %d: %v", i, len(anoms), err)
	}
	e, err := collectRows(iotest.OneByteReader(bytes.NewReader(b[:len(b)-entryTrailer])))
	if err != nil || !reflect.DeepEqual(e.Anomalies, anoms) {
		t.Fatalf("one byte at a time: %v", err)
	}
	for _, n := range []int{windowMin - 1, windowMin, windowMin + 1, 2 * windowMin, len(b) / 2, len(b) - entryTrailer - 1} {
		if _, err := collectRows(bytes.NewReader(b[:n])); err == nil {
			t.Errorf("an entry cut to %d of %d bytes decoded", n, len(b))
		}
	}
	for _, at := range []int{windowMin - 3, windowMin + 7, len(b) / 3, len(b) - entryTrailer - 2} {
		flipped := bytes.Clone(b)
		flipped[at] ^= 0x80
		// a change in a string's bytes decodes: only no panic is asked
		e, err := collectRows(bytes.NewReader(flipped[:len(b)-entryTrailer]))
		if err == nil && len(e.Anomalies) != len(anoms) {
			t.Errorf("byte %d changed: %d rows", at, len(e.Anomalies))
		}
	}
}

// checkEncoded checks that the rows ar encodes straight from its
// instances (anomalyRows.encode) are the encoding of rows, its rows built
// one by one.
func checkEncoded(t *testing.T, name string, ar anomalyRows, rows []AnomalyRow) {
	t.Helper()
	var got, want []byte
	if err := ar.encode(func(b []byte) error {
		got = append(got, b...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := rowSlice(rows).encode(func(b []byte) error {
		want = append(want, b...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: %d rows encoded in %d bytes, %d by row", name, len(rows), len(got), len(want))
	}
}

// TestEncodedInPieces: a result of several pieces (rowPiece instances a
// piece, encoded on every core) encodes as its rows do, in order.
func TestEncodedInPieces(t *testing.T) {
	var sb strings.Builder
	n := 2*rowPiece + 17
	sb.WriteString("{:index 0, :type :invoke, :process 0, :f :send, :value [[:send :x 0]]}\n")
	sb.WriteString("{:index 1, :type :ok, :process 0, :f :send, :value [[:send :x [0 0]]]}\n")
	sb.WriteString("{:index 2, :type :invoke, :process 1, :f :poll, :value [[:poll]]}\n")
	sb.WriteString("{:index 3, :type :ok, :process 1, :f :poll, :value [[:poll {:x [[0 0]], :y [")
	for i := range n {
		fmt.Fprintf(&sb, "[%d \"v<%d>\"] ", i, i)
	}
	sb.WriteString("]}]]}\n")
	hist, err := ingest.Read(strings.NewReader(sb.String()), "pieces.edn", ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := check.History(hist, check.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, ar := rowsOf("pieces.edn", 1, "", false, res, 0)
	all, err := allRows(ar)
	if err != nil || len(all) < n {
		t.Fatalf("%d rows (%v), want at least %d", len(all), err, n)
	}
	checkEncoded(t, "pieces.edn", ar, all)
}

// get returns the entry under key, its anomaly rows included, or false
// on a miss: the tests' way to read an entry whole (a scan reads its rows
// one at a time, cache.eachRow).
func (c *cache) get(key string) (*cacheEntry, bool) {
	var e *cacheEntry
	err := c.open(key, func(r io.Reader) (err error) {
		e, err = collectRows(r)
		return err
	})
	return e, err == nil
}

// decodeEntry decodes a whole entry, its anomaly rows included (their
// strings their own).
func decodeEntry(b []byte) (*cacheEntry, error) {
	if len(b) < entryTrailer || !trailerFits(b[len(b)-entryTrailer:], int64(len(b))) {
		return nil, errBadEntry
	}
	return collectRows(bytes.NewReader(b[:len(b)-entryTrailer]))
}

// collectRows reads an entry's head and rows from r (readEntryRows) and
// returns the entry with copies of its rows.
func collectRows(r io.Reader) (*cacheEntry, error) {
	anoms := []AnomalyRow{}
	e, err := readEntryRows(r, func(a *AnomalyRow) error {
		anoms = append(anoms, cloneRow(a))
		return nil
	})
	if err != nil {
		return nil, err
	}
	e.Anomalies = anoms
	return e, nil
}

// cloneRow returns a copy of a whose strings are its own.
func cloneRow(a *AnomalyRow) AnomalyRow {
	c := *a
	if a.Key != nil {
		k := strings.Clone(*a.Key)
		c.Key = &k
	}
	c.Type, c.Instance = strings.Clone(a.Type), strings.Clone(a.Instance)
	for _, l := range [2]*[]string{&c.Values, &c.Skipped} {
		*l = slices.Clone(*l)
		for i := range *l {
			(*l)[i] = strings.Clone((*l)[i])
		}
	}
	return c
}
