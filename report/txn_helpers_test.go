package report

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/check"
	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/report/txnview"
	"github.com/hindsight-dev/hindsight/workload"
)

// txnFixtures are the list-append histories the report's tests use,
// copied from the shared fixtures (their names carry the verdict), plus
// the hostile one made for the report.
const txnFixtures = "testdata/list-append"

// synthListAppend writes a list-append history of nTxns transactions in
// EDN, deterministic for a seed: procs processes run in rounds, each
// invoking one transaction of one to three micro-ops (appends of fresh
// elements, reads of whole lists) on a window of eight keys that retire
// after 24 appends; the transactions of a round take effect one after
// another, in a shuffled order, at their completions, so the history is
// strict serializable but for its faults. Every 5,000th transaction is a
// stale read (it misses the last append of a key, which completed before
// it began: a G-single-item-realtime cycle); about 1% of transactions fail
// (their appends never happen) and 1% end info (theirs happen, their reads
// are unknown); the last transaction never completes. Ops are 1 ms apart.
func synthListAppend(nTxns, procs int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 7))
	var sb strings.Builder
	var idx, t int64
	lists := map[int][]int{}
	nextKey, nextElem := 8, 1
	window := []int{0, 1, 2, 3, 4, 5, 6, 7}
	type mop struct {
		append bool
		key    int
		elem   int
	}
	write := func(typ string, p int, mops []mop, results [][]int, extra string) {
		fmt.Fprintf(&sb, "{:index %d, :time %d, :type :%s, :process %d, :f :txn, :value [", idx, t, typ, p)
		for i, m := range mops {
			if i > 0 {
				sb.WriteByte(' ')
			}
			if m.append {
				fmt.Fprintf(&sb, "[:append %d %d]", m.key, m.elem)
				continue
			}
			if results == nil || results[i] == nil {
				fmt.Fprintf(&sb, "[:r %d nil]", m.key)
				continue
			}
			fmt.Fprintf(&sb, "[:r %d [", m.key)
			for j, e := range results[i] {
				if j > 0 {
					sb.WriteByte(' ')
				}
				fmt.Fprint(&sb, e)
			}
			sb.WriteString("]]")
		}
		fmt.Fprintf(&sb, "]%s}\n", extra)
		idx++
		t += 1_000_000
	}
	done := 0
	for done < nTxns {
		n := min(procs, nTxns-done)
		txns := make([][]mop, n)
		for p := range n {
			k := 1 + rng.IntN(3)
			for range k {
				key := window[rng.IntN(len(window))]
				if rng.IntN(2) == 0 {
					txns[p] = append(txns[p], mop{append: true, key: key, elem: nextElem})
					nextElem++
				} else {
					txns[p] = append(txns[p], mop{key: key})
				}
			}
			write("invoke", p, txns[p], nil, "")
		}
		for _, p := range rng.Perm(n) {
			done++
			serial := done
			if serial == nTxns && nTxns > 1 {
				continue // the last transaction never completes
			}
			outcome := rng.IntN(100)
			results := make([][]int, len(txns[p]))
			for i, m := range txns[p] {
				switch {
				case m.append && outcome != 0: // a failed txn's appends never happen
					lists[m.key] = append(lists[m.key], m.elem)
				case !m.append:
					results[i] = append([]int{}, lists[m.key]...)
					if serial%5000 == 0 && len(results[i]) > 0 {
						results[i] = results[i][:len(results[i])-1] // stale
					}
				}
			}
			switch outcome {
			case 0:
				write("fail", p, txns[p], nil, ", :error \"aborted\"")
			case 1:
				write("info", p, txns[p], nil, ", :error \"timeout\"")
			default:
				write("ok", p, txns[p], results, "")
			}
		}
		// retire full keys
		for i, k := range window {
			if len(lists[k]) >= 24 {
				delete(lists, k)
				window[i] = nextKey
				nextKey++
			}
		}
	}
	return sb.String()
}

// checkText checks a history given as text.
func checkText(t testing.TB, name, text string) (*analysis.Result, *model.History) {
	t.Helper()
	h, err := ingest.Read(strings.NewReader(text), name, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := check.History(h, checkOpts(false))
	if err != nil {
		t.Fatal(err)
	}
	return res, h
}

// isTxn reports whether the named workload's page is the transactional
// one (its registry entry holds txnview's layout).
func isTxn(name string) bool {
	w, ok := workload.Lookup(name)
	if !ok {
		return false
	}
	_, txn := w.Layout.(txnview.Layout)
	return txn
}
