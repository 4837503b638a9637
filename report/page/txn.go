package page

// The types of this file are the part of the View only transactional
// histories (list-append, rw-register) have; package txnview fills them.

// TxnView is the part of the page only transactional histories have.
type TxnView struct {
	// Models are the consistency models checked; Not the weakest models
	// the anomalies rule out, AlsoNot the stronger ones they rule out too
	// (Elle's :not and :also-not).
	Models  []string `json:"models"`
	Not     []string `json:"not"`
	AlsoNot []string `json:"also_not"`
	// List says the history is list-append (its writes are appends), not
	// rw-register (writes of values), for the page's wording.
	List bool `json:"list"`
	// Timeline is the transaction timeline.
	Timeline TxnTimeline `json:"timeline"`
	// Orders are the keys' version orders, keys with anomalies first, at
	// most MaxKeys of OrdersTotal.
	Orders      []OrderView `json:"orders"`
	OrdersTotal int         `json:"orders_total"`
}

// TxnTimeline is the transaction timeline: time (or op index) across, one
// lane per process, each transaction a bar from its invocation to its
// completion. Its option is in Chart.Option; its custom series are drawn by
// the page script, bar data [start, end, lane, status, invocation index,
// completion index (-1: never completed)].
type TxnTimeline struct {
	Chart
	// Axis names the x axis ("time (ms)", or "op index" and why).
	Axis string `json:"axis"`
	// Lanes are the lanes' labels, one per process, in order.
	Lanes []string `json:"lanes"`
	// Colors are the fills of the statuses (ok, info, fail, never
	// completed), by status number.
	Colors []string `json:"colors"`
	// Txns is the number of transactions in the history, Drawn how many
	// bars the chart has, Marked how many of them take part in an anomaly
	// shown on the page.
	Txns   int `json:"txns"`
	Drawn  int `json:"drawn"`
	Marked int `json:"marked"`
	// Marks are the anomaly instances shown on the page with transactions
	// on the timeline; a bar's "m" lists indices into Marks.
	Marks []TxnMark `json:"marks"`
}

// TxnMark is one anomaly instance on the transaction timeline.
type TxnMark struct {
	// Label names the instance ("G1c #1"); Target is the id of its
	// article on the page.
	Label  string `json:"label"`
	Target string `json:"target"`
	// Txns is how many transactions take part; From and To span them on
	// the x axis.
	Txns int     `json:"txns"`
	From float64 `json:"from"`
	To   float64 `json:"to"`
}

// OrderView is one key's version order, as far as reads showed it.
type OrderView struct {
	Key string `json:"key"`
	// Len is the number of elements; Order the order as text, shortened
	// to its first and last elements when long.
	Len   int    `json:"len"`
	Order string `json:"order"`
	// From is the op whose read showed the order, -1 when none did.
	From int64 `json:"from"`
	// Anomalies counts the anomaly instances that involve the key.
	Anomalies int `json:"anomalies"`
	// Partial marks an rw-register order: Order then lists its edges (Len
	// of them), each with the source that established it.
	Partial bool `json:"partial,omitempty"`
}

// ReadsView sets two reads of one key side by side (incompatible-order):
// a window of their elements around the first one where they differ.
type ReadsView struct {
	// Diff is the 0-based index of the first element where the reads
	// differ.
	Diff int `json:"diff"`
	// Indices are the 1-based element numbers of the window's columns.
	Indices []int       `json:"indices"`
	Rows    [2]ReadsRow `json:"rows"`
}

// ReadsRow is one of the two reads of a ReadsView.
type ReadsRow struct {
	Op  int64 `json:"op"`
	Len int   `json:"len"`
	// Before and After count the elements left out of the window.
	Before int `json:"before"`
	After  int `json:"after"`
	// Cells are the elements in the window (Text "" past the list's end).
	Cells []ReadsCell `json:"cells"`
}

// ReadsCell is one element of a read.
type ReadsCell struct {
	Text string `json:"text"`
	Diff bool   `json:"diff,omitempty"`
}
