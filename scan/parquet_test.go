package scan

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
)

// TestParquetColumns writes every column kind the tables use (strings,
// integers and booleans, required and nullable; lists of strings and of
// integers, required and nullable) with nulls, empty strings, empty and
// long lists, over two row groups, and reads the file back with
// readParquetRows and with arrow-go's own Arrow reader (pqarrow), which
// must both give back what was written, metadata included.
func TestParquetColumns(t *testing.T) {
	md := arrow.NewMetadata([]string{"k1", "k2"}, []string{"v1", ""})
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "sn", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "i", Type: arrow.PrimitiveTypes.Int64},
		{Name: "in", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean},
		{Name: "bn", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "ls", Type: stringList},
		{Name: "lsn", Type: stringList, Nullable: true},
		{Name: "li", Type: int64List},
		{Name: "lin", Type: int64List, Nullable: true},
	}, &md)
	const rows = 300
	want := make([]map[string]any, rows)
	rb := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer rb.Release()
	path := filepath.Join(t.TempDir(), "t.parquet")
	var recs []arrow.RecordBatch
	for r := range rows {
		null := r%3 == 1
		s := fmt.Sprint("row ", r)
		if r%5 == 0 {
			s = ""
		}
		var strs []string
		var ints []int64
		for j := range r % 7 * (1 + r/100) {
			strs = append(strs, fmt.Sprint(r, ".", j))
			ints = append(ints, int64(r*1000-j))
		}
		row := map[string]any{"s": s, "i": int64(-r), "b": r%2 == 0, "ls": anyList(strs), "li": anyList(ints),
			"sn": nil, "in": nil, "bn": nil, "lsn": nil, "lin": nil}
		appendOrNull(rb.Field(0).(*array.StringBuilder), s, false)
		appendOrNull(rb.Field(1).(*array.StringBuilder), s, null)
		appendOrNull(rb.Field(2).(*array.Int64Builder), int64(-r), false)
		appendOrNull(rb.Field(3).(*array.Int64Builder), int64(-r), null)
		appendOrNull(rb.Field(4).(*array.BooleanBuilder), r%2 == 0, false)
		appendOrNull(rb.Field(5).(*array.BooleanBuilder), r%2 == 0, null)
		appendStrings(rb.Field(6).(*array.ListBuilder), strs)
		appendInts(rb.Field(8).(*array.ListBuilder), ints)
		if null {
			rb.Field(7).(*array.ListBuilder).AppendNull()
			rb.Field(9).(*array.ListBuilder).AppendNull()
		} else {
			appendStrings(rb.Field(7).(*array.ListBuilder), strs)
			appendInts(rb.Field(9).(*array.ListBuilder), ints)
			row["sn"], row["in"], row["bn"], row["lsn"], row["lin"] = s, int64(-r), r%2 == 0, row["ls"], row["li"]
		}
		want[r] = row
		if r == 120 || r == rows-1 { // two row groups
			rec := rb.NewRecordBatch()
			defer rec.Release()
			recs = append(recs, rec)
		}
	}
	writeParquet(t, path, sc, parquet.NewWriterProperties(), recs...)
	var ours []map[string]any
	groups := 0
	info, err := readParquetRows(path, nil, func(rows []map[string]any) error {
		ours = append(ours, rows...)
		groups++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if v := info.meta.FindValue("k1"); v == nil || *v != "v1" || groups != 2 {
		t.Errorf("metadata k1 = %v, %d row groups", v, groups)
	}
	arrowSchema, arrowRows := readParquet(t, path)
	if got, want := fieldSig(arrowSchema), fieldSig(sc); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("pqarrow reads the schema as\n%v\nwant\n%v", got, want)
	}
	if v, _ := arrowSchema.Metadata().GetValue("k1"); v != "v1" {
		t.Errorf("pqarrow reads metadata k1 = %q", v)
	}
	for name, got := range map[string][]map[string]any{"readParquetRows": ours, "pqarrow": arrowRows} {
		if len(got) != rows {
			t.Fatalf("%s: %d rows, want %d", name, len(got), rows)
		}
		for r := range rows {
			for _, f := range sc.Fields() {
				if g, w := norm(got[r][f.Name]), norm(want[r][f.Name]); g != w {
					t.Fatalf("%s: row %d column %s = %s, want %s", name, r, f.Name, g, w)
				}
			}
		}
	}
}

// appendInts appends a list of integers to a list builder.
func appendInts(lb *array.ListBuilder, xs []int64) {
	lb.Append(true)
	vb := lb.ValueBuilder().(*array.Int64Builder)
	for _, x := range xs {
		vb.Append(x)
	}
}

// TestParquetDamaged: a damaged histories table (bytes changed anywhere
// but the magic numbers) is an error or rows, never a crash, whatever
// arrow-go's page reader does with it (some damaged page headers make it
// panic, which readParquetRows turns into an error).
func TestParquetDamaged(t *testing.T) {
	rb := array.NewRecordBuilder(memory.DefaultAllocator, HistoriesSchema)
	defer rb.Release()
	for i := range 40 {
		appendHistory(rb, &HistoryRow{Path: fmt.Sprint("h", i), Verdict: VerdictValid, Workload: "queue", Ops: int64(i),
			BadTypes: []string{"G1a"}, Counts: map[string]int64{"G1a": int64(i)}})
	}
	rec := rb.NewRecordBatch()
	defer rec.Release()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.parquet")
	writeParquet(t, good, HistoriesSchema, parquet.NewWriterProperties(parquet.WithDictionaryDefault(true)), rec)
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	errs, panics := 0, 0
	for seed := range 400 {
		b := slices.Clone(data)
		for k := range 1 + seed%3 {
			i := 4 + (seed*7919+k*104729)%(len(b)-8)
			b[i] ^= byte(1 + (seed+k)%255)
		}
		bad := filepath.Join(dir, "bad.parquet")
		if err := os.WriteFile(bad, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := readHistoriesFile(bad)
		if err != nil {
			errs++
			if strings.Contains(err.Error(), "panic while reading") {
				panics++
			}
		}
	}
	if errs == 0 {
		t.Error("no damaged table was an error")
	}
	t.Logf("%d of 400 damaged tables were errors, %d of them panics in arrow-go", errs, panics)
}

// TestParquetRowGroupBound: a row group of more rows than hindsight
// writes is refused before anything is sized by its count.
func TestParquetRowGroupBound(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{{Name: "path", Type: arrow.BinaryTypes.String}}, nil)
	rb := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer rb.Release()
	for range batchRows + 1 {
		rb.Field(0).(*array.StringBuilder).Append("p")
	}
	rec := rb.NewRecordBatch()
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "big.parquet")
	writeParquet(t, path, sc, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(2*batchRows)), rec)
	_, err := readParquetRows(path, nil, func([]map[string]any) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "hindsight writes at most") {
		t.Fatalf("a row group of %d rows read with error %v", batchRows+1, err)
	}
}

// writeParquet writes recs, a row group each, to a new Parquet file at
// path with parquetWriter.
func writeParquet(t *testing.T, path string, sc *arrow.Schema, props *parquet.WriterProperties, recs ...arrow.RecordBatch) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	pw, err := newParquetWriter(f, sc, props)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if err := pw.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
}
