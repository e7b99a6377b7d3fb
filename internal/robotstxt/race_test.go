//go:build race

package robotstxt

// raceEnabled: the race detector makes the corpus oracle some fifteen
// times slower, and finds nothing in a parse that shares no state.
const raceEnabled = true
