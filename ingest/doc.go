// Package ingest reads Jepsen histories into a model.History.
//
// # Formats
//
// A history is a sequence of op maps (docs/README.md#ops-and-their-indices),
// in one of:
//
//   - EDN: one map per line (or several per line, or one spread over lines),
//     or one top-level vector or list of maps. All of EDN that Jepsen writes is
//     accepted: commas as whitespace, ';' comments, #_ discards, tagged
//     literals (a tagged map where an op is expected, #jepsen.history.Op{...}
//     or any other record, is read as the map; #object[...], #error {...},
//     #inst "...", #uuid "..." and any other #tag form are kept as source
//     text where a value is needed and skipped elsewhere), sets,
//     strings with escapes, characters, keywords, symbols, nil, true, false,
//     integers (sign, N suffix; beyond int64 they become model.KBigInt atoms),
//     floats, M decimals and ratios (kept as source text, model.KOther).
//   - JSON: one array of objects, or one object per line (JSON Lines). Field
//     names are the EDN ones without the colon; "rebalance_log" is accepted
//     for "rebalance-log"; type, f and micro-op names may carry a leading
//     colon. Poll-map keys (object keys, always strings) are interned by text
//     (model.Builder.KeyText), so "3" is the key 3 if 3 appears elsewhere.
//
// Either may be compressed with gzip or zstd; compression is recognised by
// its magic bytes, never by the file name. ReadFile also reads a file
// stored in a tar or zip archive, named ARCHIVE!/path/in/archive (one
// archive nested in another: OUTER!/INNER!/path), in place through package
// internal/archive, never unpacking it; the name appears in every error.
// Options.MaxBytes bounds the text read (a decompression bomb stops there
// with an error wrapping ErrTooLarge). The format is detected from the
// content unless forced with Options.Format: after whitespace, '[' then '{'
// then '"', or '{' then '"', is JSON; anything else is EDN. A UTF-8 byte
// order mark is skipped. Lines may end in LF, CRLF or a lone CR: each
// counts as one line break, in line numbers and where an EDN ';' comment
// ends.
//
// # Limits
//
// Forms nest at most MaxNesting (1,000) levels deep: maps, vectors, lists,
// sets, JSON objects and arrays, tagged forms such as #object[...] by
// their brackets, the op map and a top-level vector included, and each #_
// discard a level of its own. Jepsen histories nest fewer than 10. The
// bracket (or #_) that opens level 1,001 is an *Error at its line and
// column: "too deeply nested: this '{' opens level 1001, past the limit of
// 1000 nested forms". With that limit, the reader's memory is a constant
// times its input on any bytes: the scratch space of an op, a string or a
// captured form grows with the bytes that make it, and nothing grows
// without them (FuzzParserMemory asserts at most 128 bytes allocated per
// byte read, plus 2 MB).
//
// # Streaming
//
// The input is read through a sliding buffer. Tokens are decoded straight
// into a small per-op scratch structure and interned when the op's map
// closes; no tree of the document is ever built, and integers, keywords and
// field names cost no allocation. The buffer holds the op being read plus a
// little context for error excerpts, so memory grows with the ops kept, not
// with the size of the file. Compressed input is decompressed on the fly, in
// a goroutine of its own so that decompression and parsing share the work.
// Keys, values and messages are interned through a model.Builder (with
// caches in front that give the same ids); the ops themselves are gathered
// in chunks and joined once into History.Ops at the end, instead of
// Builder.Add, whose append would copy every op several times.
//
// # Parallel reading
//
// ReadFile reads a large plain file (8 MB or more) of one op per line, EDN
// or JSON Lines, on every core (Options.Workers): a goroutine cuts it into
// blocks of whole lines, each block is decoded on its own, and the blocks
// are merged in file order, which numbers keys, values and messages exactly
// as a sequential read does (parallel.go says how). A file whose first op
// is inside a top-level vector or array, and any file in which a block
// meets a syntax error, an op or form that runs past the end of a block,
// or a vector at the top level, is read again sequentially from the start,
// so errors and warnings are always those of the sequential read. Standard
// input, Read's readers and compressed files are read sequentially: a
// compressed one is decompressed by a goroutine of its own, one chunk
// ahead, so decompression and parsing share two cores.
//
// Most EDN op maps, one to a line with the usual fields (:index, :time,
// :type, :process, :f, :value, :error) and plain values, are read by a
// fast path (fastOp) that skips the tokenizer and fills the same scratch
// structure; anything it does not expect sends the op to the general
// decoder.
//
// # Truncation
//
// A test that crashes leaves a history cut off mid-op. When the input ends
// inside an unclosed map, vector, list, set or string, or a compressed
// stream ends early (io.ErrUnexpectedEOF), every complete op before the cut
// is kept, History.Truncated is set and a warning names FILE:LINE:COL where
// the cut op (or the unclosed top-level vector) started. This is not an
// error. A syntax error anywhere else is an *Error with the exact line and
// column.
//
// A writer that crashes may also leave NUL bytes at the end of the file
// (its length was saved, its last blocks were not). Input that ends in NUL
// bytes, after complete ops or in the middle of one, plain or compressed,
// is read the same way: the complete ops before them are kept,
// History.Truncated is set, and the one warning names FILE:LINE:COL where
// the NUL bytes begin, how many there are and what they cut off ("the
// input ends in 4096 NUL bytes from here, as a writer that crashed leaves
// it, inside the op that starts at line 4, column 1; kept the 3 complete
// ops before it"). A NUL byte followed by anything else is an *Error. So
// are NUL bytes after the last complete member of a gzip file (the
// compressed file padded): "the gzip stream ends in 4096 NUL bytes after
// its last complete member, as a writer that crashed leaves it; ...", at
// the end of the text read.
//
// Only the op that runs into the end of the input is cut off. An op left
// unclosed before the next op begins is malformed: an *Error at the
// unclosed op's first byte, naming the line where the next op begins and
// what is left open ("missing ']}', the first for the '[' at line 2, column
// 61"). The next op is taken to begin, inside an op that started on an
// earlier line, where a line starts (after blanks) with '{' (in EDN also a
// tagged record such as #jepsen.history.Op{) at or left of the column of
// that op's first byte, followed by an op field name (:index, :type,
// "process", ... ); this holds also after a newline inside a string, which
// Jepsen never writes. It fits every layout read: one op per line, several
// per line, ops spread over lines and top-level vectors, since pretty
// printers indent a nested map that opens a line deeper than the op it is
// in. A hand-written nested map moved left to its op's column, and whose
// first key is an op field, would be taken for the next op.
//
// # Workload values
//
// Ingest decodes itself the values of the queue and transactional
// workloads (micro-ops, keys, :rebalance-log vectors; see Decoding
// choices). A workload whose ops carry values of other shapes (the abort
// workload's poll maps {:topic "t1" :offsets [1 2 3] :abort? true}, its
// topic-name subscribes, its :rebalance-log map {:before [...] :during
// [...]}) decodes them itself through a ValueDecoder that Options.Decoders
// installs (package workload lists every workload's, and package check
// passes them). Ingest offers a decoder only what it does not decode
// itself, so that queue and transactional histories read exactly as
// without decoders, at the same speed:
//
//   - an op's :value that is not nil and not a vector, list or set (a map,
//     a string, a number, a tagged form...), once the op's map is closed
//     and its :f known: :value may come before :f, and a decoder claims
//     a value by its :f and its Shape (a map, a string ...), which is all
//     it learns before it reads. Such a value is kept as its source text
//     while the op is read (bounded by the op's own bytes, as an op's
//     scratch space always is) and then read by a lexer of its own that
//     numbers lines and columns as the input does;
//   - an op field ingest does not know (any but :index, :time, :type,
//     :process, :f, :value, :error and :rebalance-log), and
//     :rebalance-log when it is not a vector: offered by name and shape
//     (:f may come later, so a field is claimed without it) and read in
//     place.
//
// The decoders are asked in order; the first whose Claim accepts a form
// reads it through a Value, a cursor on the token stream (Int, Text, Key,
// Bool, Map, Seq, Skip: no tree is built), and writes what it keeps
// through an ExtWriter into one record of the op (model.ExtRec: a kind,
// words and keys, stored beside the op, never in it; model.Op stays 40
// bytes). Keys are interned as a send's keys are. A value a decoder
// accepted is no longer checked by ingest (a poll whose value is a map is
// then no error). What no decoder claims is decoded, ignored or rejected
// exactly as without decoders. A decoder's error (Value.Errorf,
// Value.ErrorAt, or a form of the wrong kind for Int, Map ...) is an
// *Error with the file, line and column of the form, and an excerpt. The
// fast path (fastOp) keeps such a :value's source text itself when the
// value is on the op's line and made only of maps, vectors, integers,
// keywords, strings without escapes, nil, true and false (an abort
// history's poll maps and topics): the same text readOp would keep, then
// offered and read the same way, so the records and errors are the same;
// it leaves to the general decoder every op with any other such value,
// and every op with a field a decoder may claim. A decoder that is also a
// RawDecoder is offered a captured EDN :value as its source bytes first,
// through a Scanner (no token stream, no callbacks: the abort workload's
// poll maps), and declines anything it does not expect, which Decode
// then reads: every error still comes from Decode. When the fast path
// meets a map :value after the op's :f, it offers the map to the
// RawDecoder there and then (fastClaimValue), so that the map is scanned
// once, not once to find its end and again to read it; that Scanner
// takes only keys already interned (Key declines any other, and the
// decoder with it), and the record goes after the op's other records, so
// that key numbers and record order are those of the value offered once
// the op is read (FuzzDecodeRaw in package abort compares the two in
// every field order). The parallel reader
// renumbers the keys of a block's records with the rest of the block, so
// histories read in parallel get the same records.
//
// # Decoding choices
//
// Where the docs leave the format open:
//
//   - :index must be an integer (nil counts as missing); a missing index is
//     the op's 0-based position among the op maps. :time that is not an
//     integer (nil aside, which counts as missing) is ignored
//     (model.NoTime), with one warning per history at the first such
//     :time in file order (a parallel read keeps the earliest block's).
//   - :type must be invoke, ok, info or fail (keyword, string or symbol, with
//     or without colon); anything else, or none, is an *Error at the op.
//   - :process must fit 0..2^31-1 when it is an integer (else *Error);
//     anything else that is not an integer (:nemesis, strings) is
//     model.NoProcess, not a client. A send, poll or txn op without :process
//     (or with nil) belongs to one anonymous client process,
//     model.AnonProcess, as Elle pairs such ops (its paper's example history
//     has no :process); any other op without one is not a client.
//   - :f is read from a keyword, string or symbol; otherwise it counts as
//     missing. Without :f, a :value that is a vector of micro-op vectors
//     makes the op a txn.
//   - :value is read before :f is known (it may come first). For send, poll
//     and txn it must be nil, empty or a vector (or list) of micro-op vectors,
//     each well formed; otherwise the op is an *Error. Ops with another :f
//     get micro-ops when their :value is a well-formed vector of micro-op
//     vectors (list-append, rw-register), and none otherwise (nemesis values
//     such as [:isolated {...}] are fine). For assign and subscribe :value
//     must be nil or a vector, list or set of keys.
//   - Micro-ops: [:send k v] and [:send k [offset v]] (offset an integer or
//     nil), [:poll], [:poll nil] and [:poll {k [[offset v] ...]}] (a key
//     mapped to nil reads nothing); [:append k v], [:w k v], and [:r k v]
//     where v is nil (model.MopRead, not done), a vector or list
//     (model.MopReadList, list-append) or any other value (model.MopRead,
//     rw-register). Names may be keywords, strings or symbols. Any other
//     name is an *Error at the name when the op is a send, poll or txn
//     (a client op without :f whose :value is micro-ops is a txn); in an op
//     with another :f it makes the op's micro-ops unusable and they are
//     dropped (nemesis values such as [[:n1 :n2] [:n3]] look like
//     micro-ops).
//   - Keys and values: integers are KInt (KBigInt beyond int64, digits
//     normalised: no '+', no N, no leading zeros), strings KString,
//     keywords KKeyword; anything else, composite forms included, KOther
//     holding its source text (EDN nil is "nil", JSON null "null").
//   - :error: a string as it is, a keyword as its text with the colon,
//     anything else as its source text; cut to 300 characters with "...".
//   - :rebalance-log: the :keys of each map in the vector, without
//     duplicates, in order of first appearance; other shapes are ignored.
//   - History.Line is the line of the op's '{'. Errors and warnings point at the
//     op's first byte (its tag, for a tagged record).
//   - Several top-level vectors in a row are read one after the other; a
//     vector inside the top-level vector is an *Error.
//   - An EDN map with string keys ({"index" 0 ...}) is taken for JSON by the
//     detector; force FormatEDN to read it.
//   - Cols count bytes from the start of the line (a byte order mark does not
//     count); lines and columns are int64, never cut off. An error's
//     excerpt shows control bytes and bytes that are not UTF-8 as \xNN.
package ingest
