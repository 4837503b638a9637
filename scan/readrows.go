package scan

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// ReadHistories reads back the history rows of a scan: path is a
// histories table (histories.parquet, histories-i-of-n.parquet) or a
// scan's output folder, whose histories tables (every shard's) are read
// together. Rows come sorted by path. Memory is that of the table: it is
// read whole (a scan's table is about 200 bytes a history).
//
// It is the reader of the scan's own schema (doc.go): the count_<type>
// columns go back into Counts under the type's name, nulls become zero
// values.
func ReadHistories(path string) ([]HistoryRow, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	files := []string{path}
	if fi.IsDir() {
		files, err = filepath.Glob(filepath.Join(path, "histories*.parquet"))
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: no histories.parquet in this folder (is it a scan's output, -o?)", path)
		}
		slices.Sort(files)
	}
	var rows []HistoryRow
	for _, f := range files {
		r, err := readHistoriesFile(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		rows = append(rows, r...)
	}
	slices.SortStableFunc(rows, func(a, b HistoryRow) int { return strings.Compare(a.Path, b.Path) })
	return rows, nil
}

// readHistoriesFile reads one histories table.
func readHistoriesFile(path string) ([]HistoryRow, error) {
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		return nil, err
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return nil, err
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		return nil, err
	}
	defer tbl.Release()
	if tbl.Schema().FieldIndices("path") == nil || tbl.Schema().FieldIndices("verdict") == nil {
		return nil, errors.New("not a histories table of hindsight scan (no path and verdict columns)")
	}
	countCol := map[string]string{}
	for _, typ := range CountTypes {
		countCol[CountColumn(typ)] = typ
	}
	tr := array.NewTableReader(tbl, 1<<16)
	defer tr.Release()
	var rows []HistoryRow
	for tr.Next() {
		var buf bytes.Buffer
		if err := array.RecordToJSON(tr.RecordBatch(), &buf); err != nil {
			return nil, err
		}
		dec := json.NewDecoder(&buf)
		for dec.More() {
			var raw map[string]json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, err
			}
			var row HistoryRow
			for col, v := range raw {
				if typ, ok := countCol[col]; ok {
					var n int64
					if json.Unmarshal(v, &n) == nil && n != 0 {
						if row.Counts == nil {
							row.Counts = map[string]int64{}
						}
						row.Counts[typ] = n
					}
				}
			}
			// The named columns share HistoryRow's JSON names but for
			// the counts; unmarshalling the row object fills them.
			b, _ := json.Marshal(raw)
			var named HistoryRow
			if err := json.Unmarshal(b, &named); err != nil {
				return nil, err
			}
			named.Counts = row.Counts
			rows = append(rows, named)
		}
	}
	return rows, tr.Err()
}
