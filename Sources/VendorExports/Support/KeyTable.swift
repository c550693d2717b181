import JSONCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finds which of a fixed list of names an object key is, with one probe of a small hash table:
/// what the recipes use to sort an object's members in a single pass, instead of looking each
/// field up by name.
package struct KeyTable: Sendable {
    /// Open-addressed slots; a power-of-two count, mostly empty.
    private let slots: [Slot]
    /// Every name's bytes, one after another.
    private let bytes: [UInt8]
    private let shift: UInt64
    /// The number of names.
    let count: Int

    private struct Slot {
        /// The name's first 8 bytes, little-endian, zero-padded.
        var prefix: UInt64 = 0
        /// Field number + 1 (0: an empty slot).
        var field: UInt16 = 0
        var length: UInt16 = 0
        /// Where the name's bytes start in `bytes`.
        var offset: UInt32 = 0
    }

    /// A table of `names`; a key's field number is its name's index.
    package init(_ names: [String]) {
        var bits: UInt64 = 6
        while (1 << bits) < names.count * 4 { bits += 1 }
        let size = 1 << Int(bits)
        var slots = [Slot](repeating: Slot(), count: size)
        var bytes: [UInt8] = []
        for (k, name) in names.enumerated() {
            let utf8 = Array(name.utf8)
            let prefix = utf8.withUnsafeBufferPointer { Self.prefix($0) }
            var s = Self.slot(prefix, utf8.count, shift: 64 - bits)
            while slots[s].field != 0 { s = (s + 1) & (size - 1) }
            slots[s] = Slot(prefix: prefix, field: UInt16(k + 1), length: UInt16(utf8.count), offset: UInt32(bytes.count))
            bytes += utf8
        }
        self.slots = slots
        self.bytes = bytes
        shift = 64 - bits
        count = names.count
    }

    /// The key's first 8 bytes as a little-endian word, zero-padded.
    @inline(__always)
    private static func prefix(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 {
        if key.count >= 8, let base = key.baseAddress {
            // The key has at least 8 bytes from `base`; loadUnaligned, as bytes have no alignment.
            return UInt64(littleEndian: UnsafeRawPointer(base).loadUnaligned(as: UInt64.self))
        }
        var word: UInt64 = 0
        for k in 0..<key.count { word |= UInt64(key[k]) << UInt64(8 * k) }
        return word
    }

    /// The home slot of a key with this prefix and length (a multiplicative hash).
    @inline(__always)
    private static func slot(_ prefix: UInt64, _ length: Int, shift: UInt64) -> Int {
        Int(truncatingIfNeeded: ((prefix ^ UInt64(length) &* 0x9E37_79B9) &* 0xFF51_AFD7_ED55_8CCD) >> shift)
    }

    /// The field number of the key at `range` of `buffer` (the content of a key without escapes),
    /// or nil when it is none of the names.
    @inline(__always)
    package func field(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        let key = UnsafeBufferPointer(rebasing: buffer[range])
        let prefix = Self.prefix(key)
        let mask = slots.count - 1
        var s = Self.slot(prefix, key.count, shift: shift)
        return slots.withUnsafeBufferPointer { slots -> Int? in
            while true {
                let slot = slots[s]
                if slot.field == 0 { return nil }
                if slot.prefix == prefix, Int(slot.length) == key.count, key.count <= 8 || rest(slot, key) {
                    return Int(slot.field) - 1
                }
                s = (s + 1) & mask
            }
        }
    }

    /// Whether the bytes after the first 8 of a key longer than 8 are the slot's name's.
    @inline(__always)
    private func rest(_ slot: Slot, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.withUnsafeBufferPointer { names in
            // Both ranges hold key.count - 8 bytes: the key is longer than 8, and the slot's name
            // has the key's length and starts at `offset` of `names`.
            memcmp(names.baseAddress! + Int(slot.offset) + 8, key.baseAddress! + 8, key.count - 8) == 0
        }
    }

    /// The field number of `member`'s key, decoding a key that holds escapes.
    @inline(__always)
    func field(of member: JSONMember, in buffer: UnsafeBufferPointer<UInt8>) -> Int? {
        guard member.keyHasEscapes else { return field(buffer, member.key) }
        var decoded = JSONStrings.decode(buffer, member.key, hasEscapes: true)
        return decoded.withUTF8 { field($0, 0..<$0.count) }
    }
}
