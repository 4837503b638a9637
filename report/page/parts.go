package page

// Part is one piece of the page a workload's layout adds: the name of a
// template its Layout.Templates define (or one every page has, such as
// "anomalies", the sections of the anomaly types), and the data that
// template renders. The page template renders a workload's parts in
// order without knowing which workload they come from.
type Part struct {
	Template string
	Data     any
}

// Link is one entry of the page's navigation bar: the id of a part's
// section and the words of the link.
type Link struct {
	Anchor string
	Text   string
}

// Parts are what a workload's layout adds to the page, by where it goes:
// Head in the header, below the provenance block; Nav in the navigation
// bar, after the link to the summary; Body in the main column, after the
// summary, in the order given. Script is what the page script reads of
// the workload beyond the charts (nil for nothing): the transaction
// timeline's lanes and marks.
type Parts struct {
	Head   []Part
	Nav    []Link
	Body   []Part
	Script any
}
