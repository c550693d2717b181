/// Stable messageIds for events whose vendor gives none, made from the record's bytes.
///
/// The id of a record's only event is MurmurHash3 x64-128 of the record's bytes (the JSON object
/// from `{` to `}`, without the whitespace around it) with the recipe's seed. The id of event `i`
/// of a record of several (an mParticle batch, a RudderStack job) is the hash, with the same seed,
/// of that 16-byte hash (h1 then h2, each little-endian) followed by `i` as 4 little-endian bytes.
/// The 128 bits become a lowercase RFC 9562 version-8 UUID: bytes h1 then h2 big-endian, version
/// nibble 8, variant bits 10. The same record always gets the same ids, on every run and every
/// machine; a duplicated line gets the same ids as its original.
package enum DerivedIds {
    /// The seed of `format`'s ids (FNV-1a 32 of its name), so that equal bytes read as records of
    /// different vendors get different ids.
    package static func seed(_ format: ExportFormat) -> UInt32 {
        var h: UInt32 = 0x811c_9dc5
        for c in format.rawValue.utf8 {
            h ^= UInt32(c)
            h &*= 0x0100_0193
        }
        return h
    }

    /// The 128 bits of the id of event `index` (nil: the record's only event) of `record`.
    package static func bits(_ record: UnsafeBufferPointer<UInt8>, seed: UInt32, index: Int?) -> (UInt64, UInt64) {
        let whole = Murmur3.hash128(UnsafeRawBufferPointer(record), seed: seed)
        guard let index else { return whole }
        // h1, h2 and the index, little-endian: 20 bytes of a 24-byte tuple.
        var block: (UInt64, UInt64, UInt32, UInt32) = (whole.0.littleEndian, whole.1.littleEndian, UInt32(truncatingIfNeeded: index).littleEndian, 0)
        return withUnsafeBytes(of: &block) { raw in
            // The tuple's first 20 bytes are h1, h2 and the index, laid out in that order; they
            // are read as raw bytes (no typed access to the tuple's memory).
            Murmur3.hash128(UnsafeRawBufferPointer(rebasing: raw[0..<20]), seed: seed)
        }
    }
}

extension Workspace {
    /// Appends the quoted UUID text of `bits` (version 8, RFC 9562 variant) to the scratch bytes.
    mutating func scratchUUID(_ bits: (UInt64, UInt64)) -> Piece {
        let hex: StaticString = "0123456789abcdef"
        var high = bits.0
        var low = bits.1
        high = (high & ~(0xF << 12)) | (0x8 << 12)  // version: the high nibble of byte 6
        low = (low & ~(0x3 << 62)) | (0x2 << 62)  // variant: the top two bits of byte 8
        var text: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &text) { raw in
            // `raw` holds 42 bytes; the writes below fill bytes 0..<38 (quote, 36 characters,
            // quote). `utf8Start` points at the 16 hex digits; each index is below 16.
            var k = 0
            raw[k] = UInt8(ascii: "\"")
            k += 1
            for n in 0..<32 {
                if n == 8 || n == 12 || n == 16 || n == 20 {
                    raw[k] = UInt8(ascii: "-")
                    k += 1
                }
                let word = n < 16 ? high : low
                let nibble = Int((word >> UInt64(60 - 4 * (n % 16))) & 0xF)
                raw[k] = hex.utf8Start[nibble]
                k += 1
            }
            raw[k] = UInt8(ascii: "\"")
        }
        let start = UInt32(scratch.count)
        // The tuple's first 38 bytes, all written above, read as raw bytes.
        withUnsafeBytes(of: &text) { scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[0..<38])) }
        return .scratch(start, UInt32(scratch.count))
    }

    /// The derived messageId of event `index` of `record` (see ``DerivedIds``).
    mutating func derivedMessageId(_ record: UnsafeBufferPointer<UInt8>, _ format: ExportFormat, index: Int?) -> Piece {
        derivedIdsInRecord += 1
        return scratchUUID(DerivedIds.bits(record, seed: DerivedIds.seed(format), index: index))
    }
}
