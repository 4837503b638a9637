package report

import (
	"fmt"
	"io"
	"testing"

	"github.com/hindsight-dev/hindsight/check"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/model"
)

// synthHistory builds a queue history of about nOps ops: producers send
// one value at a time round-robin over the keys, each consumer polls one
// key (up to three messages at a time), one op per millisecond. Every
// 5,000th message of a key is never polled by anyone, which gives lost
// writes and poll skips; a consumer that reaches the end of a key gets an
// empty poll.
func synthHistory(nOps, keys, procs int) *model.History {
	b := model.NewBuilder("synthetic")
	type logEntry struct {
		msg model.MsgID
		off int64
	}
	logs := make([][]logEntry, keys)
	pos := make([]int, procs) // consumers' next log position
	keyIDs := make([]model.KeyID, keys)
	for k := range keys {
		keyIDs[k] = b.Key(model.IntAtom(int64(k)))
	}
	var idx, t, val int64
	add := func(op model.Op) {
		b.Add(idx, t, op)
		idx++
		t += 1_000_000
	}
	for idx < int64(nOps) {
		for p := range procs {
			if idx >= int64(nOps) {
				break
			}
			if p%2 == 0 { // producer, round-robin over the keys
				val++
				k := int(val) % keys
				msg := b.Msg(keyIDs[k], b.Value(model.IntAtom(val)))
				off := int64(len(logs[k]))
				add(model.Op{Type: model.Invoke, Process: int32(p), F: model.FSend,
					Mops: b.StoreMops(model.Mop{Kind: model.MopSend, Key: keyIDs[k], Msg: msg})})
				add(model.Op{Type: model.OK, Process: int32(p), F: model.FSend,
					Mops: b.StoreMops(b.Send(keyIDs[k], msg, off))})
				logs[k] = append(logs[k], logEntry{msg, off})
				continue
			}
			k := (p / 2) % keys // consumer of one key
			var reads []model.Read
			for n := 0; n < 3 && pos[p] < len(logs[k]); n++ {
				e := logs[k][pos[p]]
				pos[p]++
				if e.off%5000 == 4999 {
					continue // nobody reads it
				}
				reads = append(reads, model.NewRead(e.off, e.msg))
			}
			add(model.Op{Type: model.Invoke, Process: int32(p), F: model.FPoll, Mops: b.StoreMops(model.Mop{Kind: model.MopPoll})})
			add(model.Op{Type: model.OK, Process: int32(p), F: model.FPoll,
				Mops: b.StoreMops(b.Spanned(model.Mop{Kind: model.MopPoll, Done: true},
					b.StorePolls(model.KeyPoll{Key: keyIDs[k], Reads: b.StoreReads(reads...)})))})
		}
	}
	return b.History()
}

// BenchmarkReport builds the view of a checked 1M-op synthetic history and
// writes its page; it reports the page size. (bench/bench.sh times the
// whole `hindsight report` run on the generator's history.)
func BenchmarkReport(b *testing.B) {
	h := synthHistory(1_000_000, 8, 16)
	res, err := check.History(h, checkOpts(false))
	if err != nil {
		b.Fatal(err)
	}
	if err := AssetsAvailable(); err != nil {
		b.Skip(err)
	}
	var size countWriter
	b.ResetTimer()
	for b.Loop() {
		size = 0
		if err := WriteHTML(&size, BuildView(res, h, ViewOptions{})); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(size)/1e6, "MB/page")
}

// countWriter counts what is written to it.
type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)

// BenchmarkViewOneHugePoll builds the view of one poll of n messages of
// one key at descending offsets, values repeating every 1,000: about n
// int-nonmonotonic-poll instances in one op, each marked on the timeline
// at its place in that op. At 10k and 100k the time grows tenfold (it
// grew a hundredfold while each mark scanned the poll).
func BenchmarkViewOneHugePoll(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		res, h := checkLines(b, testhist.DescendingPoll("1", n, 1000))
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				BuildView(res, h, ViewOptions{})
			}
		})
	}
}
