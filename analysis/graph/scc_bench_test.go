package graph

import "testing"

// BenchmarkSCC finds the components of a graph shaped like a long
// history's: a chain of 1M vertices in order (so the depth-first walk
// holds most of the graph, as along realtime order), four more edges a
// vertex, nearly all forward, one in a hundred back (small components).
func BenchmarkSCC(b *testing.B) {
	const n = 1 << 20
	g := BuildFunc(n, func(add func(from, to int32, rel Rel)) {
		for v := int32(0); v+1 < n; v++ {
			add(v, v+1, Realtime)
			for k := range int32(4) {
				h := uint32(v)*2654435761 + uint32(k)*40503 // deterministic: emit runs twice
				w := v + 1 + int32(h>>26)
				if h%100 == 0 {
					w = v - int32(h>>27)
				}
				if w >= 0 && w < n && w != v {
					add(v, w, WR)
				}
			}
		}
	})
	for b.Loop() {
		if len(g.SCC()) == 0 {
			b.Fatal("no components")
		}
	}
}
