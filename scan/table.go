package scan

import (
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/hindsight-dev/hindsight/internal/atomicfile"
)

// schemaMetaKey is the schema metadata key holding SchemaVersion.
const schemaMetaKey = "hindsight.scan.schema"

var (
	stringList = arrow.ListOfNonNullable(arrow.BinaryTypes.String)
	int64List  = arrow.ListOfNonNullable(arrow.PrimitiveTypes.Int64)
	schemaMeta = arrow.NewMetadata([]string{schemaMetaKey}, []string{SchemaVersion})
)

// HistoriesSchema is the Arrow schema of the histories table: one row per
// history. See the package documentation for the meaning of each column.
var HistoriesSchema = func() *arrow.Schema {
	str, i64 := arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64
	fs := []arrow.Field{
		{Name: "path", Type: str},
		{Name: "size_bytes", Type: i64},
		{Name: "sha256", Type: str, Nullable: true},
		{Name: "workload", Type: str, Nullable: true},
		{Name: "ops", Type: i64, Nullable: true},
		{Name: "verdict", Type: str},
		{Name: "bad_types", Type: stringList},
	}
	for _, t := range CountTypes {
		fs = append(fs, arrow.Field{Name: CountColumn(t), Type: i64, Nullable: true})
	}
	fs = append(fs,
		arrow.Field{Name: "elapsed_ms", Type: i64},
		arrow.Field{Name: "error", Type: str, Nullable: true},
		arrow.Field{Name: "unknown_reasons", Type: stringList},
		arrow.Field{Name: "anomaly_types", Type: stringList},
		arrow.Field{Name: "truncated", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		arrow.Field{Name: "warnings", Type: stringList},
		arrow.Field{Name: "models", Type: stringList, Nullable: true},
		arrow.Field{Name: "not", Type: stringList, Nullable: true},
		arrow.Field{Name: "also_not", Type: stringList, Nullable: true},
		arrow.Field{Name: "archive", Type: str, Nullable: true},
	)
	return arrow.NewSchema(fs, &schemaMeta)
}()

// AnomaliesSchema is the Arrow schema of the anomalies table: one row per
// anomaly instance. See the package documentation.
var AnomaliesSchema = arrow.NewSchema([]arrow.Field{
	{Name: "path", Type: arrow.BinaryTypes.String},
	{Name: "type", Type: arrow.BinaryTypes.String},
	{Name: "key", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "values", Type: stringList},
	{Name: "witness", Type: int64List},
	{Name: "bad", Type: arrow.FixedWidthTypes.Boolean},
	{Name: "skipped", Type: stringList},
	{Name: "instance", Type: arrow.BinaryTypes.String},
}, &schemaMeta)

// withRunMetadata returns schema with metadata saying which hindsight
// build and which check options produced the table, beside its schema
// version: a table read months later says how to reproduce it.
func withRunMetadata(schema *arrow.Schema, build, options string) *arrow.Schema {
	keys := append(schema.Metadata().Keys(), buildMetaKey, optionsMetaKey)
	vals := append(schema.Metadata().Values(), build, options)
	md := arrow.NewMetadata(keys, vals)
	return arrow.NewSchema(schema.Fields(), &md)
}

// Metadata keys of the tables, beside schemaMetaKey.
const (
	buildMetaKey   = "hindsight.build"
	optionsMetaKey = "hindsight.options"
)

// batchRows is the number of rows per record batch (and Parquet row group).
const batchRows = 64 * 1024

// tableWriter writes one table as Parquet and, optionally, Arrow IPC,
// record batch by record batch, each file under a temporary name until
// commit renames it.
type tableWriter struct {
	rb    *array.RecordBuilder
	n     int
	files []*pendingFile
	pq    *parquetWriter
	ipc   *ipc.FileWriter
}

// pendingFile is an output file being written under a temporary name.
type pendingFile = atomicfile.File

func newPending(path string) (*pendingFile, error) { return createTemp(path) }

// writerOnly hides Close from the Arrow writers, which close their sink:
// the file is closed by commit.
type writerOnly struct{ io.Writer }

func newTableWriter(schema *arrow.Schema, pqPath, ipcPath string) (t *tableWriter, err error) {
	t = &tableWriter{rb: array.NewRecordBuilder(memory.DefaultAllocator, schema)}
	defer func() {
		if err != nil {
			t.abort()
		}
	}()
	pf, err := newPending(pqPath)
	if err != nil {
		return t, err
	}
	t.files = append(t.files, pf)
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithCreatedBy("hindsight scan ("+SchemaVersion+")"),
		parquet.WithMaxRowGroupLength(batchRows),
	)
	if t.pq, err = newParquetWriter(writerOnly{pf}, schema, props); err != nil {
		return t, err
	}
	if ipcPath != "" {
		af, err := newPending(ipcPath)
		if err != nil {
			return t, err
		}
		t.files = append(t.files, af)
		if t.ipc, err = ipc.NewFileWriter(writerOnly{af}, ipc.WithSchema(schema)); err != nil {
			return t, err
		}
	}
	return t, nil
}

// added counts a row appended to t.rb and writes a batch when one is full.
func (t *tableWriter) added() error {
	t.n++
	if t.n < batchRows {
		return nil
	}
	return t.flush()
}

func (t *tableWriter) flush() error {
	if t.n == 0 {
		return nil
	}
	rec := t.rb.NewRecordBatch()
	defer rec.Release()
	t.n = 0
	if err := t.pq.Write(rec); err != nil {
		return err
	}
	if t.ipc != nil {
		return t.ipc.Write(rec)
	}
	return nil
}

// commit writes the last batch, closes the writers and renames the files
// into place. On error nothing is renamed that was not complete.
func (t *tableWriter) commit() (err error) {
	defer func() {
		if err != nil {
			t.abort()
		}
	}()
	if err = t.flush(); err != nil {
		return err
	}
	if err = t.pq.Close(); err != nil {
		return err
	}
	if t.ipc != nil {
		if err = t.ipc.Close(); err != nil {
			return err
		}
	}
	t.rb.Release()
	t.rb = nil
	for len(t.files) > 0 {
		if err = t.files[0].Commit(); err != nil {
			t.files = t.files[1:]
			return err
		}
		t.files = t.files[1:]
	}
	return nil
}

// abort removes the temporary files.
func (t *tableWriter) abort() {
	for _, f := range t.files {
		f.Abort()
	}
	t.files = nil
	if t.rb != nil {
		t.rb.Release()
		t.rb = nil
	}
}

// appendOrNull appends v to b, or a null when null is set.
func appendOrNull[T any](b interface {
	Append(T)
	AppendNull()
}, v T, null bool) {
	if null {
		b.AppendNull()
	} else {
		b.Append(v)
	}
}

// appendHistory appends r to a record builder of HistoriesSchema.
func appendHistory(rb *array.RecordBuilder, r *HistoryRow) {
	i := 0
	next := func() array.Builder { b := rb.Field(i); i++; return b }
	str := func(s string, null bool) { appendOrNull(next().(*array.StringBuilder), s, null) }
	i64 := func(v int64, null bool) { appendOrNull(next().(*array.Int64Builder), v, null) }
	list := func(ss []string) { appendStrings(next().(*array.ListBuilder), ss) }
	ok := r.checked()
	str(r.Path, false)
	i64(r.SizeBytes, false)
	str(r.SHA256, r.SHA256 == "")
	str(r.Workload, !ok)
	i64(r.Ops, !ok)
	str(r.Verdict, false)
	list(r.BadTypes)
	for _, t := range CountTypes {
		i64(r.Counts[t], !ok)
	}
	i64(r.ElapsedMS, false)
	str(r.Error, r.Error == "")
	list(r.UnknownReasons)
	list(r.AnomalyTypes)
	appendOrNull(next().(*array.BooleanBuilder), r.Truncated, !ok)
	list(r.Warnings)
	for _, l := range [][]string{r.Models, r.Not, r.AlsoNot} {
		lb := next().(*array.ListBuilder)
		if l == nil {
			lb.AppendNull()
		} else {
			appendStrings(lb, l)
		}
	}
	str(r.Archive, r.Archive == "")
}

// appendAnomaly appends a to a record builder of AnomaliesSchema.
func appendAnomaly(rb *array.RecordBuilder, a *AnomalyRow) {
	rb.Field(0).(*array.StringBuilder).Append(a.Path)
	rb.Field(1).(*array.StringBuilder).Append(a.Type)
	if a.Key == nil {
		rb.Field(2).(*array.StringBuilder).AppendNull()
	} else {
		rb.Field(2).(*array.StringBuilder).Append(*a.Key)
	}
	appendStrings(rb.Field(3).(*array.ListBuilder), a.Values)
	wb := rb.Field(4).(*array.ListBuilder)
	wb.Append(true)
	wb.ValueBuilder().(*array.Int64Builder).AppendValues(a.Witness, nil)
	rb.Field(5).(*array.BooleanBuilder).Append(a.Bad)
	appendStrings(rb.Field(6).(*array.ListBuilder), a.Skipped)
	rb.Field(7).(*array.StringBuilder).Append(a.Instance)
}

// appendStrings appends ss as one list of a list-of-strings column.
//
// It appends the strings one at a time: StringBuilder.AppendValues reserves
// exactly the bytes it adds, no more (arrow-go v18.8.0's
// BinaryBuilder.ReserveData), so one call per row reallocated and copied
// the column's whole data for every row, quadratic in the rows; Append
// grows it by doubling. A history with 2,000,000 instances took 62 s to
// scan (13 s of it copying), its check 8 s.
func appendStrings(b *array.ListBuilder, ss []string) {
	b.Append(true)
	vb := b.ValueBuilder().(*array.StringBuilder)
	for _, s := range ss {
		vb.Append(s)
	}
}
