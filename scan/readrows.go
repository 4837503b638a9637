package scan

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	countCol := map[string]string{}
	for _, typ := range CountTypes {
		countCol[CountColumn(typ)] = typ
	}
	var rows []HistoryRow
	info, err := readParquetRows(path, nil, func(group []map[string]any) error {
		for _, raw := range group {
			// The named columns share HistoryRow's JSON names but for the
			// counts; unmarshalling the row object fills them.
			b, err := json.Marshal(raw)
			if err != nil {
				return err
			}
			var row HistoryRow
			if err := json.Unmarshal(b, &row); err != nil {
				return err
			}
			row.Counts = nil
			for col, v := range raw {
				if typ, ok := countCol[col]; ok {
					if n, ok := v.(int64); ok && n != 0 {
						if row.Counts == nil {
							row.Counts = map[string]int64{}
						}
						row.Counts[typ] = n
					}
				}
			}
			rows = append(rows, row)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !slices.Contains(info.columns, "path") || !slices.Contains(info.columns, "verdict") {
		return nil, errors.New("not a histories table of hindsight scan (no path and verdict columns)")
	}
	return rows, nil
}
