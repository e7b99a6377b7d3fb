//go:build race

package polite

// raceEnabled: the race detector multiplies time and memory; the scale
// tests shrink under it.
const raceEnabled = true
