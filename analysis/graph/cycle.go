package graph

import (
	"slices"
)

// SCC returns the strongly connected components of g that have at least two
// real vertices (a graph without self-loops has a cycle only inside those),
// each sorted ascending, the components ordered by their smallest vertex.
// Hubs (hubs.go) are left out of them: a Searcher puts them back.
//
// It is Tarjan's algorithm with an explicit stack instead of recursion, so a
// component of a million vertices costs heap, not goroutine stack.
// Cost: O(V + E) time, O(V) memory.
func (g *Graph) SCC() [][]int32 {
	comps := g.components()
	if g.hubs == 0 {
		return comps
	}
	n := int32(g.Real())
	kept := comps[:0]
	for _, comp := range comps {
		k, _ := slices.BinarySearch(comp, n)
		if k >= 2 {
			kept = append(kept, comp[:k:k])
		}
	}
	return kept
}

// components is SCC with the hubs in the components.
func (g *Graph) components() [][]int32 {
	n := g.N()
	const unvisited = -1
	index := make([]int32, n)
	low := make([]int32, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = unvisited
	}
	var stack []int32 // Tarjan's stack of vertices
	type frame struct {
		v    int32
		next int32 // next edge position to look at
	}
	var call []frame
	var comps [][]int32
	next := int32(0)
	for root := int32(0); root < int32(n); root++ {
		if index[root] != unvisited {
			continue
		}
		call = append(call, frame{root, g.start[root]})
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			v := f.v
			if f.next < g.start[v+1] {
				w := g.to[f.next]
				f.next++
				if index[w] == unvisited {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{w, g.start[w]})
				} else if onStack[w] && index[w] < low[v] {
					low[v] = index[w]
				}
				continue
			}
			// v is finished.
			call = call[:len(call)-1]
			if len(call) > 0 {
				u := call[len(call)-1].v
				if low[v] < low[u] {
					low[u] = low[v]
				}
			}
			if low[v] == index[v] {
				i := len(stack) - 1
				for stack[i] != v {
					i--
				}
				members := stack[i:]
				for _, w := range members {
					onStack[w] = false
				}
				if len(members) > 1 {
					comp := slices.Clone(members)
					slices.Sort(comp)
					comps = append(comps, comp)
				}
				stack = stack[:i]
			}
		}
	}
	slices.SortFunc(comps, func(a, b []int32) int { return int(a[0] - b[0]) })
	return comps
}
