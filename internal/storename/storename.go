// Package storename names the history file of a Jepsen store folder: the
// one list that check, scan and the readers of archive members share, so
// that a folder scan takes for a store is one check reads too.
//
// A Jepsen store folder holds its history as history.edn (older tests and
// other tools write history.json or history.jsonl), and archives of runs
// often hold it compressed (history.edn.gz, history.edn.zst). A folder
// holding any of these is a store folder; when it holds several, the first
// in Names is its history: EDN before JSON before JSON lines, and of one
// format the plain file before its gzip and zstd copies.
package storename

// Names are the history files of a store folder, in order of preference.
var Names = func() []string {
	var names []string
	for _, base := range []string{"history.edn", "history.json", "history.jsonl"} {
		names = append(names, base, base+".gz", base+".zst")
	}
	return names
}()

// Pick returns the first of Names that isFile says the folder holds, and
// whether there was one.
func Pick(isFile func(name string) bool) (string, bool) {
	for _, n := range Names {
		if isFile(n) {
			return n, true
		}
	}
	return "", false
}

// Listed is how errors name the files a store folder may hold.
const Listed = "history.edn, history.json or history.jsonl, gzip or zstd compressed or not"
