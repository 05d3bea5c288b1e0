package trajectory

// maxMatching returns a maximum matching of the bipartite graph whose left
// vertex i is adjacent to the right vertices adj[i]: matchL[i] is i's
// partner or -1, matchR likewise. It is Hopcroft–Karp: breadth-first
// layers from the free left vertices, then vertex-disjoint shortest
// augmenting paths along them, until no augmenting path is left, which by
// Berge's lemma makes the matching maximum. O(E·√V).
//
// A greedy matcher (each expected call takes the first compatible actual
// call) is not enough: with expected calls a, b and actual calls x, y where
// a fits x and y but b fits only x, greedy pairs a with x and leaves b
// unmatched, reporting a failure where a one-to-one pairing exists.
func maxMatching(nL, nR int, adj [][]int) (matchL, matchR []int) {
	matchL, matchR = make([]int, nL), make([]int, nR)
	for i := range matchL {
		matchL[i] = -1
	}
	for j := range matchR {
		matchR[j] = -1
	}
	const inf = int(^uint(0) >> 1)
	dist := make([]int, nL)
	queue := make([]int, 0, nL)
	bfs := func() bool {
		queue = queue[:0]
		for i := range nL {
			if matchL[i] < 0 {
				dist[i] = 0
				queue = append(queue, i)
			} else {
				dist[i] = inf
			}
		}
		found := false
		for q := 0; q < len(queue); q++ {
			i := queue[q]
			for _, j := range adj[i] {
				k := matchR[j]
				switch {
				case k < 0:
					found = true
				case dist[k] == inf:
					dist[k] = dist[i] + 1
					queue = append(queue, k)
				}
			}
		}
		return found
	}
	var dfs func(i int) bool
	dfs = func(i int) bool {
		for _, j := range adj[i] {
			k := matchR[j]
			if k < 0 || dist[k] == dist[i]+1 && dfs(k) {
				matchL[i], matchR[j] = j, i
				return true
			}
		}
		dist[i] = inf // a dead end in this phase
		return false
	}
	for bfs() {
		for i := range nL {
			if matchL[i] < 0 {
				dfs(i)
			}
		}
	}
	return matchL, matchR
}
