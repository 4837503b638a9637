// Package scan checks an archive of histories in parallel and writes what
// it found as two tables, in Parquet (and, on request, Arrow IPC), for
// `hindsight scan`. Teams keep years of Jepsen runs; after a fix, or when
// a new anomaly type is added, a scan says which old runs show it.
//
// # Inputs
//
// Discover walks the arguments for Jepsen store folders (a folder holding
// history.edn, history.json or history.jsonl, plain, .gz or .zst: that file
// is the input, and the folder is not descended into), loose .edn, .json
// and .jsonl files (also .gz, .zst), skipping results.edn, test.edn,
// *.expect.json, *.expected.json and hidden names, and archives: files
// named .tar, .tar.gz, .tgz, .tar.zst, .tzst or .zip (a file given as an
// argument is an archive by its content, whatever its name; an argument
// ARCHIVE!/path names the members at or below path). Symlinked
// directories are followed after the real tree, each directory and file
// visited once by (device, inode), which breaks loops. Anything unreadable
// becomes a row with its error. Inputs are sorted by path; --shard i/n
// keeps those whose path hash (FNV-1a, 64 bits, modulo n) is i, so n
// machines running the same command line from the same directory
// partition an archive; ShardFromEnv reads i and n of an Indexed Job.
//
// # Archives
//
// An archive is read in place (package internal/archive), never unpacked:
// nothing is written to disk, so a member named "../../etc/x.edn" or
// "/etc/x.edn" is only a name and escapes nothing. A tar is read once,
// front to back, by a reader of its own (up to Options.Jobs archives at
// once) that hands each history to a worker and waits until the worker
// has read its bytes into memory; the member's bytes are admitted against
// the memory budget with its check, so memory is bounded by the histories
// in flight, never by the archive. A member of 64 MiB or more stored
// without compression (streamAbove) is not copied: the walk hashes it on
// its way and asks the cache, and one more read of the archive after the
// walk hands each such member the cache did not know to a worker that
// checks it straight from the stream, admitted for its check alone, as a
// loose file is; its bytes must hash as in the walk, or its row is an
// error saying the member changed. A member that a store folder's rule
// drops (history.json beside history.edn) is not checked in that pass.
// Inside an archive the same rules apply
// to member names: history files by IsMemberHistory (no hidden path
// element), and a folder holding a Jepsen history file contributes that
// file only (decided once the archive's names are all seen). An archive
// inside an archive is walked one level deep (a zip of tarballs, as CI
// artifacts are); deeper is an error row. A history inside is named
// ARCHIVE!/path/in/archive (OUTER!/INNER!/path one level down) in the
// tables, the summary and every message, and `hindsight check
// ARCHIVE!/path` reads that member. A cut or damaged archive gives rows
// for the members read before the damage, an error row for the member it
// broke in, and an error row under the archive's own path for the rest;
// a zip cut short has lost its index and is one error row, and so is a
// zip whose central directory points outside the file or to no stored
// file. Of several members with the same name, the first is checked and
// the others are skipped as duplicates. A hard or symbolic link of a tar
// (or a symbolic link of a zip) named like a history is a row of its own
// with the result of the file it resolves to (archive.Link; the file is
// checked once, and the row is copied under the link's name, anomaly rows
// included); a target this shard did not check in its walk (not a history
// by name, outside the part asked for, in another shard) is read in a
// second pass over the archive. A link that resolves to no file of the
// archive (outside it, dangling, a folder, a loop) is an error row saying
// so; a symbolic link to a folder adds no row. Every shard reads every
// archive (a tar cannot be split), and checks only the members whose path
// hashes to it.
//
// # Files that are not histories
//
// Archives and store folders hold more than histories (results.edn,
// test.json, checker output, tool configs). A file whose first value is
// not an op (not a map, or a map without any of the keys type, process, f
// and index; a vector counts by its first element) is skipped: counted in
// Summary.Skipped and listed in Summary.SkippedFiles, not a row. A file
// that starts like a history and breaks later is an error row with its
// line and column, and so is one whose first value cannot be read (the
// parser says why); an empty file is an empty history.
//
// # Size limit
//
// Options.MaxHistoryBytes (--max-history-bytes, default a quarter of the
// machine's or cgroup's memory) bounds a history's text after
// decompression, and its size as stored: a history past it is an error
// row saying so, read no further than the limit, so a decompression bomb
// (a member that inflates a thousandfold) takes at most the limit's worth
// of memory. Such rows are not cached: a bigger limit reads them.
//
// # Tables
//
// histories (histories.parquet, or histories-I-of-N.parquet for a shard),
// one row per history, sorted by path:
//
//	path             string         the history file, as found (argument + path below it; ARCHIVE!/path inside an archive)
//	size_bytes       int64          its size on disk (compressed, if it is; a member's size in its archive)
//	sha256           string, null   SHA-256 of its bytes (a member's as if extracted); null when not read
//	workload         string, null   "queue", "list-append", ...; null for an error row
//	ops              int64, null    ops in the history (stats.ops)
//	verdict          string         valid, invalid, unknown, or error (not read, parsed or checked)
//	bad_types        list<string>   anomaly types that make it invalid, sorted
//	count_<type>     int64, null    instances of each type of workload.AllTypes, every character but
//	                                letters, digits and '_' spelled '_' (count_lost_write,
//	                                count_G1c_realtime, count_PL_2_99_cycle_exists ...); null for an
//	                                error row
//	elapsed_ms       int64          wall time to read and check it (of the run that computed the row)
//	error            string, null   why it could not be read, parsed or checked
//	unknown_reasons  list<string>   why the verdict is unknown
//	anomaly_types    list<string>   every anomaly type found, bad or allowed, sorted
//	truncated        bool, null     the history ended mid-op (kept, with a warning; not an error)
//	warnings         list<string>   the check's warnings
//	models           list<string>, null  transactional workloads: the consistency models checked
//	not              list<string>, null  the weakest models the anomalies rule out (Elle's :not)
//	also_not         list<string>, null  the stronger models they rule out (Elle's :also-not)
//	archive          string, null   the archive holding the history (OUTER!/INNER when nested), or the
//	                                archive itself on its own error row; null for a loose file
//
// anomalies (anomalies.parquet, anomalies-I-of-N.parquet), one row per
// anomaly instance, sorted by path, then type (in workload.AllTypes order),
// then as in the JSON result:
//
//	path      string          the history, as in histories.path (the join key)
//	type      string          the anomaly type (docs/<workload>.md)
//	key       string, null    the key as JSON text (3, ":x"); null for cycles
//	values    list<string>    the value, or the values, as JSON texts
//	witness   list<int64>     op indices of the minimal counterexample, sorted
//	bad       bool            whether this instance makes the history invalid
//	skipped   list<string>    values a skip jumped over, as JSON texts
//	instance  string          the whole instance as JSON, as in check --format json
//
// Strings are UTF-8, lists never null (but models, not and also_not of
// queue rows) and their elements never null. Both schemas carry the
// metadata hindsight.scan.schema = SchemaVersion, hindsight.build (the build
// line of hindsight --version) and hindsight.options (the check options as
// JSON), so a table read months later says how to reproduce it (DuckDB:
// SELECT * FROM parquet_kv_metadata('histories.parquet')). A table
// is complete or absent: every output file is written under a temporary
// name (".NAME.tmp-*") in its directory and renamed when closed; an
// interrupted scan writes no table, but keeps its finished rows in part
// files.
//
// # Part files
//
// Finished rows are never lost: every 256 finished histories or 2 seconds,
// the rows finished since are written to a pair of part files in OutDir,
// histories<shard>.part-RUN-N.parquet and anomalies<shard>.part-RUN-N.parquet
// (the tables' schemas), each complete or absent. When the tables are
// written, every part of the shard is removed; when the scan is canceled
// (SIGINT, SIGTERM), the rows not yet in a part go to a last one and Run
// returns the parts in Summary.Files; a killed scan leaves those it wrote.
// A later run of the shard does not write a path the parts already hold,
// and its tables replace them (its cache resumes the work). The store
// folder rule and duplicate members are applied to the tables only.
//
// # Exit status
//
// Summary.ExitCode applies check's exit statuses over all histories of the scan:
// 3 when any history could not be read, parsed or checked (verdict error),
// else 4 when any could not be judged within the memory budget (an error
// row naming --memory), else 1 when any is invalid, else 2 when any is
// unknown, else 0 (the
// command's --exit-zero makes these 0, for batch schedulers). The
// command exits 3 on a usage error or when the inputs hold no history at
// all, and 130 when interrupted.
//
// # Admission
//
// At most Options.Jobs histories are checked at once, the biggest first.
// Each must also fit a memory budget (Options.MemoryBudget, default a
// quarter of physical or cgroup memory): the budget (budget.go) admits a
// history, first come first served, for MemoryFactor × its estimated
// uncompressed size + 1 MiB
// (MemoryFactorHTML × when its HTML report is written too), the size
// capped at MaxHistoryBytes, plus, for an archive member held in memory
// (compressed, or under 64 MiB), its bytes, which sit in memory while it
// is checked. The uncompressed size of a gzip file
// is read from its ISIZE trailer, of a zstd file from its frame header when
// present; otherwise 8 × the compressed size is assumed (a gzip member is
// admitted so, and what the estimate took beyond its trailer is given back
// once its bytes are read). A history estimated bigger than the whole
// budget takes all of it and runs alone. The estimate is only the first
// lease: every history's text is metered while it is read (check.Options.Meter,
// after decompression), and its lease grows from the budget to
// MemoryFactor × the text read so far. A lease that must grow is served
// before new admissions, and waits only while some other lease is not
// waiting to grow too (that one will finish, or grow and fail); when every
// lease alive is waiting, the one that finds it gives its lease back and
// the history is read again alone, holding the whole budget (a loose file
// is read again from disk, an archive member from the bytes it holds; a
// streamed member's lease is exact, its text being its size). So
// the leases never hold more than the budget together, and never wait on
// each other for ever. A history that needs more than the whole budget
// stops reading at once and is an error row naming the budget
// (check.MemoryCapError), not cached. Options.MemoryCeiling is the last
// guard, for an analysis far bigger than its text (ceiling.go): past it
// the scan writes its finished rows and error rows for the histories in
// flight to a part file and calls Options.OnCeiling, which ends the
// process. A history is not kept once its row is built
// (its HTML report, when one is asked for, is written first). A zip
// nested in a tar (or compressed in a zip) is held in memory while it is
// walked, outside the budget, up to MaxHistoryBytes.
//
// # Cache
//
// Every finished history's row and anomaly rows are stored under
// Options.CacheDir (default OUT/.cache) by a key: the SHA-256 of the file's
// bytes, of the check options, of SchemaVersion and of the checker build
// (Options.Version, by default the SHA-256 of the running executable). A
// rerun with the same build and options reuses the entry of every
// unchanged file, wherever it now lies (loose or in an archive: a
// member's key is that of its bytes), and checks only the others; a new
// build, other options or changed content miss. Entries are written to a
// temporary name and renamed; an unreadable entry is a miss. Rows of
// histories that failed on an I/O error, rather than on their content, are
// not cached. Table files are assembled at the end from the cache, so the
// anomaly rows never all sit in memory.
package scan
