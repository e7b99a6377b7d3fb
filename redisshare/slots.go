package redisshare

import (
	"strconv"
	"sync"
)

// Redis Cluster puts a key in one of 16,384 hash slots by the CRC16 of
// its hash tag (the text between its first braces), and a script may
// touch keys of one slot only. Every key of an address's scripts carries
// the address as its tag, and the epoch that tells a Redis which lost its
// data is kept once per slot, under a tag that falls in the address's
// slot: epochTag finds it.

const slots = 16384

// slotOf is the hash slot of a key tag, as Redis Cluster computes it.
func slotOf(tag string) uint16 {
	var crc uint16
	for i := 0; i < len(tag); i++ {
		crc ^= uint16(tag[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc % slots
}

// slotTags holds, for every slot, the shortest decimal number that falls
// in it: the tag of that slot's epoch key.
var slotTags = sync.OnceValue(func() *[slots]string {
	var tags [slots]string
	for n, left := 0, slots; left > 0; n++ {
		s := strconv.Itoa(n)
		if k := slotOf(s); tags[k] == "" {
			tags[k] = s
			left--
		}
	}
	return &tags
})

// epochTag is the tag of the epoch key in the slot of tag.
func epochTag(tag string) string { return slotTags()[slotOf(tag)] }
