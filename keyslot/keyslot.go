// Redis Cluster key slots: which of the 16384 hash slots, and so which
// master, holds a key. The rule is Redis's own (cluster.c keyHashSlot, in
// the Redis Cluster specification): CRC16 of the key, or of its hash tag,
// modulo 16384.

package keyslot

// Count is the number of hash slots of a Redis Cluster.
const Count = 16384 // a power of two: mod is a mask

// Of is the Redis Cluster hash slot of key, in [0, 16384): CRC16 of the
// key modulo 16384. When the key holds a hash tag, the bytes between its
// first '{' and the first '}' after that, and they are not empty, only the
// tag is hashed, so keys with the same tag share a slot: "{user1000}.following"
// and "{user1000}.followers". "foo{}{bar}" hashes whole (the first tag is
// empty), "foo{{bar}}zap" hashes "{bar", "foo{bar}{zap}" hashes "bar".
// It takes a string or the bytes of one, allocates nothing and costs one
// table lookup per hashed byte.
func Of[K string | []byte](key K) int {
	for s := 0; s < len(key); s++ {
		if key[s] != '{' {
			continue
		}
		for e := s + 1; e < len(key); e++ {
			if key[e] == '}' {
				if e > s+1 {
					key = key[s+1 : e]
				}
				break
			}
		}
		break
	}
	return int(crc16(key)) & (Count - 1)
}

// crc16 is CRC-16/XMODEM (polynomial 0x1021, initial value 0, no
// reflection, no final xor), the CRC of Redis's crc16.c, a byte at a time
// from a 256-entry table. crc16("123456789") = 0x31C3.
func crc16[K string | []byte](s K) uint16 {
	var crc uint16
	for i := 0; i < len(s); i++ {
		crc = crc<<8 ^ crc16Table[byte(crc>>8)^s[i]]
	}
	return crc
}

// crc16Table[b] is crc16 of the one byte b: b<<8 divided by the polynomial
// 0x1021 a bit at a time, as the bitwise CRC would.
var crc16Table = func() (t [256]uint16) {
	for b := range t {
		crc := uint16(b) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
		t[b] = crc
	}
	return t
}()
