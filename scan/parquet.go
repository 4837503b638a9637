package scan

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"slices"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// The scan tables' Parquet files are written and read column by column
// with arrow-go's parquet/file, not through its Arrow bridge (pqarrow):
// pqarrow imports arrow/flight, and with it gRPC and protobuf, whose code
// and package initialisation every run of the binary paid for, a check
// included (measured on copies made with cp, three runs each: the binary
// 65.2 MB against 57.8 MB without them; hindsight --version 31.6-31.8 MB
// of peak RSS against 25.4-26.3 MB, and 13.5-15.9 ms against 11.9-12.1;
// the check of 100k list-append txns 60.1-63.1 MB against 56.6-59.9 MB,
// of 100k rw-register txns 62.1-64.9 MB against 57.9-59.7 MB). The
// tables hold four kinds of column, which is all this
// file knows: strings, 64-bit integers, booleans, each required or
// nullable, and lists of strings or integers, whose elements are never
// null. A list is the standard three-level LIST group ("list" repeating,
// its "element" required), which every Parquet reader (DuckDB, pqarrow,
// pyarrow) reads as a list column. The Arrow schema's metadata is the
// file's key-value metadata, and the schema itself is stored under
// "ARROW:schema", as pqarrow stores it.

// parquetSchema is the Parquet schema of an Arrow schema of the scan
// tables' column kinds.
func parquetSchema(s *arrow.Schema) (*schema.GroupNode, error) {
	fields := make(schema.FieldList, 0, s.NumFields())
	for _, f := range s.Fields() {
		rep := parquet.Repetitions.Required
		if f.Nullable {
			rep = parquet.Repetitions.Optional
		}
		var n schema.Node
		var err error
		if l, ok := f.Type.(*arrow.ListType); ok {
			var elem schema.Node
			if elem, err = leafNode("element", parquet.Repetitions.Required, l.Elem()); err == nil {
				var list schema.Node
				if list, err = schema.NewGroupNode("list", parquet.Repetitions.Repeated, schema.FieldList{elem}, -1); err == nil {
					n, err = schema.NewGroupNodeLogical(f.Name, rep, schema.FieldList{list}, schema.NewListLogicalType(), -1)
				}
			}
		} else {
			n, err = leafNode(f.Name, rep, f.Type)
		}
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", f.Name, err)
		}
		fields = append(fields, n)
	}
	return schema.NewGroupNode("schema", parquet.Repetitions.Required, fields, -1)
}

// leafNode is the Parquet column of a string, int64 or boolean Arrow type.
func leafNode(name string, rep parquet.Repetition, t arrow.DataType) (schema.Node, error) {
	switch t.ID() {
	case arrow.STRING:
		return schema.NewPrimitiveNodeLogical(name, rep, schema.StringLogicalType{}, parquet.Types.ByteArray, -1, -1)
	case arrow.INT64:
		return schema.NewPrimitiveNode(name, rep, parquet.Types.Int64, -1, -1)
	case arrow.BOOL:
		return schema.NewPrimitiveNode(name, rep, parquet.Types.Boolean, -1, -1)
	}
	return nil, fmt.Errorf("no Parquet column for Arrow type %s", t)
}

// parquetWriter writes record batches of one Arrow schema to a Parquet
// file, one row group each.
type parquetWriter struct {
	w      *file.Writer
	fields []arrow.Field
	// scratch, reused from column to column
	def, rep []int16
	bytes    []parquet.ByteArray
	ints     []int64
	bools    []bool
}

// newParquetWriter starts a Parquet file of schema s on out, with the
// schema's metadata as the file's.
func newParquetWriter(out io.Writer, s *arrow.Schema, props *parquet.WriterProperties) (*parquetWriter, error) {
	root, err := parquetSchema(s)
	if err != nil {
		return nil, err
	}
	md := metadata.NewKeyValueMetadata()
	for i, k := range s.Metadata().Keys() {
		if err := md.Append(k, s.Metadata().Values()[i]); err != nil {
			return nil, err
		}
	}
	stored, err := storedSchema(s)
	if err != nil {
		return nil, err
	}
	if err := md.Append("ARROW:schema", stored); err != nil {
		return nil, err
	}
	w, err := file.NewParquetWriterWithError(out, root, file.WithWriterProps(props), file.WithWriteMetadata(md))
	if err != nil {
		return nil, err
	}
	return &parquetWriter{w: w, fields: s.Fields()}, nil
}

// storedSchema is s as Arrow readers look for it in a Parquet file's
// metadata under "ARROW:schema" (with its own metadata, which they give
// back as the schema's): an Arrow IPC stream of the schema and no
// batches, in base64, its lists' elements named "element" as in the
// Parquet schema.
func storedSchema(s *arrow.Schema) (string, error) {
	fields := slices.Clone(s.Fields())
	for i, f := range fields {
		if l, ok := f.Type.(*arrow.ListType); ok {
			fields[i].Type = arrow.ListOfField(arrow.Field{Name: "element", Type: l.Elem(), Nullable: l.ElemField().Nullable})
		}
	}
	md := s.Metadata()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(arrow.NewSchema(fields, &md)))
	if err := w.Close(); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// Write writes rec as a row group.
func (pw *parquetWriter) Write(rec arrow.RecordBatch) error {
	rg, err := pw.w.AppendRowGroupChecked()
	if err != nil {
		return err
	}
	for i, f := range pw.fields {
		cw, err := rg.NextColumn()
		if err != nil {
			return err
		}
		if err := pw.column(cw, rec.Column(i), f.Nullable); err != nil {
			return fmt.Errorf("column %s: %w", f.Name, err)
		}
	}
	return rg.Close()
}

// Close writes the file's footer.
func (pw *parquetWriter) Close() error { return pw.w.Close() }

// column writes one column of a batch: its values, and the definition
// levels of a nullable column (0 null, 1 a value) or of a list (for a
// nullable list 0 null, 1 empty, 2 an element; else 0 empty, 1 an
// element) with the repetition levels of a list (0 its first element, 1
// the next ones).
func (pw *parquetWriter) column(cw file.ColumnChunkWriter, col arrow.Array, nullable bool) error {
	pw.def, pw.rep = pw.def[:0], pw.rep[:0]
	pw.bytes, pw.ints, pw.bools = pw.bytes[:0], pw.ints[:0], pw.bools[:0]
	levels := nullable
	base := int16(0) // the definition level of an empty list
	if nullable {
		base = 1
	}
	switch a := col.(type) {
	case *array.List:
		levels = true
		offs := a.Offsets()
		for i := range a.Len() {
			switch lo, hi := int(offs[i]), int(offs[i+1]); {
			case a.IsNull(i):
				pw.def, pw.rep = append(pw.def, 0), append(pw.rep, 0)
			case lo == hi:
				pw.def, pw.rep = append(pw.def, base), append(pw.rep, 0)
			default:
				for j := lo; j < hi; j++ {
					r := int16(1)
					if j == lo {
						r = 0
					}
					pw.def, pw.rep = append(pw.def, base+1), append(pw.rep, r)
					pw.value(a.ListValues(), j)
				}
			}
		}
	default:
		for i := range col.Len() {
			if col.IsNull(i) {
				pw.def = append(pw.def, 0)
				continue
			}
			pw.def = append(pw.def, 1)
			pw.value(col, i)
		}
	}
	def, rep := pw.def, pw.rep
	if !levels {
		def = nil
	}
	if len(rep) == 0 {
		rep = nil
	}
	var err error
	switch w := cw.(type) {
	case *file.ByteArrayColumnChunkWriter:
		_, err = w.WriteBatch(pw.bytes, def, rep)
	case *file.Int64ColumnChunkWriter:
		_, err = w.WriteBatch(pw.ints, def, rep)
	case *file.BooleanColumnChunkWriter:
		_, err = w.WriteBatch(pw.bools, def, rep)
	default:
		err = fmt.Errorf("no writer for %T", cw)
	}
	if err == nil {
		err = cw.Close()
	}
	return err
}

// value appends element i of the string, int64 or boolean array a to
// the scratch of its kind.
func (pw *parquetWriter) value(a arrow.Array, i int) {
	switch a := a.(type) {
	case *array.String:
		s := a.Value(i)
		pw.bytes = append(pw.bytes, parquet.ByteArray(unsafe.Slice(unsafe.StringData(s), len(s))))
	case *array.Int64:
		pw.ints = append(pw.ints, a.Value(i))
	case *array.Boolean:
		pw.bools = append(pw.bools, a.Value(i))
	}
}

// parquetInfo is what readParquetRows tells of a file: its key-value
// metadata and its columns' names.
type parquetInfo struct {
	meta    metadata.KeyValueMetadata
	columns []string
}

// readParquetRows reads a Parquet file written by parquetWriter (or any of
// the same column kinds, a list's elements required) row group by row
// group, and calls each with a group's rows, each a map from column name
// to its value as encoding/json would decode it (a string, an int64, a
// bool, a []any of a list, nil for a null), of the columns named in want
// (all when want is nil). Memory is one row group's rows at a time.
//
// A damaged file is an error, never a crash: arrow-go's page reader
// panics on some damaged page headers (a dictionary page without its
// header, for one), which readParquetRows turns into an error, as pqarrow
// did ("panic while reading").
func readParquetRows(path string, want []string, each func(rows []map[string]any) error) (info *parquetInfo, err error) {
	defer func() {
		if p := recover(); p != nil {
			info, err = nil, fmt.Errorf("panic while reading: %v", p)
		}
	}()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		return nil, err
	}
	defer pf.Close()
	sc := pf.MetaData().Schema
	info = &parquetInfo{meta: pf.MetaData().KeyValueMetadata()}
	var read []int // the columns to read
	for i := range sc.NumColumns() {
		info.columns = append(info.columns, sc.ColumnRoot(i).Name())
		if want == nil || slices.Contains(want, info.columns[i]) {
			read = append(read, i)
		}
	}
	for g := range pf.NumRowGroups() {
		rg := pf.RowGroup(g)
		n := int(rg.NumRows())
		if n < 0 || n > batchRows {
			// a damaged count must not size the maps below
			return nil, fmt.Errorf("%s: a row group of %d rows; hindsight writes at most %d", path, n, batchRows)
		}
		rows := make([]map[string]any, n)
		for i := range rows {
			rows[i] = make(map[string]any, len(read))
		}
		for _, c := range read {
			name := info.columns[c]
			cr, err := rg.Column(c)
			if err != nil {
				return nil, err
			}
			vals, err := readColumn(cr, n)
			if err != nil {
				return nil, fmt.Errorf("%s: column %s: %w", path, name, err)
			}
			for i, v := range vals {
				rows[i][name] = v
			}
		}
		if err := each(rows); err != nil {
			return nil, err
		}
	}
	return info, nil
}

// readColumn reads the n rows of one column chunk.
func readColumn(cr file.ColumnChunkReader, n int) ([]any, error) {
	d := cr.Descriptor()
	maxDef, maxRep := d.MaxDefinitionLevel(), d.MaxRepetitionLevel()
	if maxRep > 1 || maxDef > 2 {
		return nil, errors.New("nested deeper than a list")
	}
	const batch = 4096
	def, rep := make([]int16, batch), make([]int16, batch)
	out := make([]any, 0, n)
	var list []any // the list being read, when a row is one
	for cr.HasNext() {
		total, vals, err := readBatch(cr, batch, def, rep)
		if err != nil {
			return nil, err
		}
		if total == 0 {
			break
		}
		v := 0
		for j := range total {
			var x any
			if def[j] == maxDef {
				if v >= len(vals) {
					return nil, errors.New("fewer values than levels say")
				}
				x = vals[v]
				v++
			}
			switch {
			case maxRep == 0:
				out = append(out, x) // nil unless defined
			case rep[j] == 1:
				if list == nil || def[j] != maxDef {
					return nil, errors.New("a list element continues no list")
				}
				list = append(list, x)
				out[len(out)-1] = list
			case maxDef == 2 && def[j] == 0:
				list = nil
				out = append(out, nil)
			case def[j] < maxDef:
				list = []any{}
				out = append(out, list)
			default:
				list = []any{x}
				out = append(out, list)
			}
		}
	}
	if err := cr.Err(); err != nil {
		return nil, err
	}
	if len(out) != n {
		return nil, fmt.Errorf("%d rows, the row group says %d", len(out), n)
	}
	return out, nil
}

// readBatch reads up to batch levels of a column of strings, int64s or
// booleans: how many, and the values of those defined.
func readBatch(cr file.ColumnChunkReader, batch int, def, rep []int16) (int, []any, error) {
	switch r := cr.(type) {
	case *file.ByteArrayColumnChunkReader:
		return readValues(r.ReadBatch, batch, def, rep, func(b parquet.ByteArray) any { return string(b) })
	case *file.Int64ColumnChunkReader:
		return readValues(r.ReadBatch, batch, def, rep, func(x int64) any { return x })
	case *file.BooleanColumnChunkReader:
		return readValues(r.ReadBatch, batch, def, rep, func(x bool) any { return x })
	}
	return 0, nil, fmt.Errorf("no reader for %T", cr)
}

// readValues is readBatch with a typed column reader's ReadBatch, each
// value made what readColumn keeps by as.
func readValues[T any](read func(int64, []T, []int16, []int16) (int64, int, error), batch int, def, rep []int16, as func(T) any) (int, []any, error) {
	vals := make([]T, batch)
	total, n, err := read(int64(batch), vals, def, rep)
	out := make([]any, n)
	for i, v := range vals[:n] {
		out[i] = as(v)
	}
	return int(total), out, err
}
