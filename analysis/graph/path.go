package graph

import "slices"

// A search's way back: the states of a closed search path, whether the path
// is a simple cycle, and the Cycle it makes.

// cycle turns the search path of a closed cycle into a Cycle.
func (t *search) cycle(path []int32) Cycle {
	s := t.s
	rels := make([]Rel, len(path))
	for i := 1; i < len(path); i++ {
		rels[i-1] = s.via[path[i]]
	}
	rels[len(path)-1] = t.closeRel
	c := Cycle{Vertices: make([]int32, len(path)), Rels: rels}
	for i, st := range path {
		c.Vertices[i] = t.comp[st/t.S]
	}
	return c
}

// path returns the search states from the start to st, following parents.
func (s *Searcher) path(st int32) []int32 {
	var p []int32
	for ; st >= 0; st = s.parent[st] {
		p = append(p, st)
	}
	slices.Reverse(p)
	return p
}

// simple reports whether the search path ending in state st visits each
// vertex once; a state is a local vertex times S plus what else the search
// tracks. It takes time linear in the path.
func (s *Searcher) simple(st, S int32) bool {
	// one mark per vertex of the component, a fresh generation per call:
	// a path can pass through every vertex of a big component (a ring of
	// 320,000 ops took 14 s while each vertex was looked for among those
	// seen before it)
	s.onPathGen++
	if s.onPathGen == 0 {
		clear(s.onPath)
		s.onPathGen = 1
	}
	for ; st >= 0; st = s.parent[st] {
		v := st / S
		if int(v) >= len(s.onPath) {
			s.onPath = append(s.onPath, make([]uint32, int(v)+1-len(s.onPath))...)
		}
		if s.onPath[v] == s.onPathGen {
			return false
		}
		s.onPath[v] = s.onPathGen
	}
	return true
}
