package lockseq

// sessionLocks is what a function leaves behind beyond its transactions:
// the advisory unlocks and the releases of connections it makes (for its
// summary), the session locks reported as taken on a pool or still held at a
// release (each reported once), and its try-locks, whose grant the function
// learns from a result it tests (trylock.go).
type sessionLocks struct {
	unlocks map[Unlock]bool
	// releases are the releases of handles that outlive the function,
	// by handle (Release.Unlocked and Release.At joined over every
	// point that releases it).
	releases map[releaseKey]*Release
	// leaks are the events of session locks taken on a pool, reported.
	leaks map[int]bool
	// returned are the session locks reported as leaked at a release,
	// by event and release instruction.
	returned map[[2]int]bool
	// tries are the events of requests that never wait, and how the
	// function learns whether they were granted (see trylock.go).
	tries map[int]tryRef
}

func newSessionLocks() sessionLocks {
	return sessionLocks{
		unlocks:  map[Unlock]bool{},
		releases: map[releaseKey]*Release{},
		leaks:    map[int]bool{},
		returned: map[[2]int]bool{},
		tries:    map[int]tryRef{},
	}
}

// releaseKey names a release of a summary: the handle, and how it ends.
type releaseKey struct {
	ref          Ref
	conn, pooled bool
}
