//go:build !race

package polite

const raceEnabled = false
