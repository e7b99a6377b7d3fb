package redisshare

import "testing"

// The slot of a tag is Redis Cluster's (the examples of its
// specification), and every slot has an epoch tag of its own.
func TestSlotOf(t *testing.T) {
	for tag, want := range map[string]uint16{"123456789": 0x31c3 % slots, "foo": 12182, "bar": 5061, "": 0} {
		if got := slotOf(tag); got != want {
			t.Errorf("slotOf(%q) = %d, want %d", tag, got, want)
		}
	}
	for k, tag := range slotTags() {
		if tag == "" || slotOf(tag) != uint16(k) {
			t.Fatalf("slot %d: tag %q", k, tag)
		}
	}
}
