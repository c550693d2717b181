import Foundation
import JSONCore

/// Message ids in the SDK's format, `<epochMillis>-<uuid>` with a lowercase 8-4-4-4-12 UUID.
///
/// Two kinds share the format and the one writer below:
/// - fresh ids for new events (the client, and events submitted without one): the event's time
///   and a random UUID (``generate(at:uuid:)``);
/// - stable ids for replayed lines without one (``stable(line:lineNumber:millis:)``): the uuid
///   is a 128-bit hash of ONLY the line's bytes and its line number, formatted as an RFC 9562
///   version-8 (custom) UUID, so the same file gives the same ids in every run, after any
///   resume, from any directory, compressed or not. The destination deduplicates by them.
@_spi(PerLine) public enum MessageID {
    /// What a messageId is made of: the event's time and the uuid as two big-endian halves.
    public struct Parts: Sendable, Equatable {
        /// Milliseconds since 1970.
        public let millis: Int64
        /// The uuid's first eight bytes, big-endian.
        public let a: UInt64
        /// The uuid's last eight bytes, big-endian.
        public let b: UInt64

        /// The parts of an id with these halves.
        public init(millis: Int64, a: UInt64, b: UInt64) {
            self.millis = millis
            self.a = a
            self.b = b
        }

        /// The parts of an id for `millis` and `uuid`.
        public init(millis: Int64, uuid: UUID) {
            let halves = withUnsafeBytes(of: uuid.uuid) { raw in
                // `raw` is the 16-byte tuple's bytes; loadUnaligned reads them with no
                // alignment or binding requirement.
                (
                    UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                    UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                )
            }
            self.init(millis: millis, a: halves.0, b: halves.1)
        }
    }

    /// A message id for `millis` and `uuid`.
    public static func make(epochMillis millis: Int64, uuid: UUID) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(maximumQuotedLength)
        append(Parts(millis: millis, uuid: uuid), to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// A fresh message id for the time `date`.
    public static func generate(at date: Date, uuid: UUID = UUID()) -> String {
        make(epochMillis: Int64((date.timeIntervalSince1970 * 1000).rounded(.down)), uuid: uuid)
    }

    /// Whether `id` has the `<epochMillis>-<uuid>` shape.
    public static func isWellFormed(_ id: String) -> Bool {
        guard let dash = id.firstIndex(of: "-") else { return false }
        let millis = id[..<dash]
        guard !millis.isEmpty, millis.allSatisfy(\.isASCII), Int64(millis) != nil else { return false }
        return UUID(uuidString: String(id[id.index(after: dash)...])) != nil
    }

    // MARK: - Stable ids for replayed lines

    /// The longest quoted messageId: quotes, a sign and 19 digits, `-`, and 36 uuid characters.
    public static let maximumQuotedLength = 2 + 20 + 1 + 36

    /// The parts of the stable messageId of line `lineNumber`, whose bytes are `line` and whose
    /// event time is `millis`.
    public static func stable(line: UnsafeBufferPointer<UInt8>, lineNumber: Int, millis: Int64) -> Parts {
        let (a, b) = hash128(line, seed: UInt64(bitPattern: Int64(lineNumber)))
        // Version 8 in the high nibble of byte 6, variant 10 in byte 8.
        return Parts(
            millis: millis, a: (a & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_8000,
            b: (b & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000)
    }

    /// The stable messageId of a line as a JSON string (with its quotes).
    public static func quoted(line: UnsafeBufferPointer<UInt8>, lineNumber: Int, millis: Int64) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(maximumQuotedLength)
        appendQuoted(stable(line: line, lineNumber: lineNumber, millis: millis), to: &out)
        return out
    }

    /// Appends the messageId as a JSON string (with its quotes), straight into bytes: the hot
    /// path writes it into the event without making a String or an array first.
    public static func appendQuoted(_ id: Parts, to out: inout [UInt8]) {
        out.appendBytes(upTo: maximumQuotedLength) { writeQuoted(id, to: &$0) }
    }

    /// Appends the messageId's text, `<millis>-<uuid>`.
    public static func append(_ id: Parts, to out: inout [UInt8]) {
        out.appendBytes(upTo: maximumQuotedLength - 2) { write(id, to: &$0) }
    }

    /// Appends `value` in decimal, as `"\(value)"` would print it.
    public static func appendDecimal(_ value: Int64, to out: inout [UInt8]) {
        out.appendBytes(upTo: 20) { writeDecimal(value, to: &$0) }
    }

    /// Appends the lowercase 8-4-4-4-12 form of two big-endian 64-bit halves.
    public static func appendUUID(_ a: UInt64, _ b: UInt64, to out: inout [UInt8]) {
        out.appendBytes(upTo: 36) { writeUUID(a, b, to: &$0) }
    }

    /// Writes the messageId as a JSON string (with its quotes): at most ``maximumQuotedLength``
    /// bytes.
    @inline(__always)
    package static func writeQuoted(_ id: Parts, to out: inout ByteCursor) {
        out.write(UInt8(ascii: "\""))
        write(id, to: &out)
        out.write(UInt8(ascii: "\""))
    }

    /// Writes the messageId's text, `<millis>-<uuid>`.
    @inline(__always)
    static func write(_ id: Parts, to out: inout ByteCursor) {
        writeDecimal(id.millis, to: &out)
        out.write(UInt8(ascii: "-"))
        writeUUID(id.a, id.b, to: &out)
    }

    /// Writes `value` in decimal (at most 20 bytes).
    static func writeDecimal(_ value: Int64, to out: inout ByteCursor) {
        if value < 0 { out.write(UInt8(ascii: "-")) }
        var m = value.magnitude
        // Room for 24 digits (UInt64.max has 20) on the stack.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var n = 0
        withUnsafeMutableBytes(of: &digits) { d in
            // `d` is raw storage: bytes are stored and read through the raw buffer's
            // UInt8 subscript, which needs no binding.
            repeat {
                d[n] = UInt8(ascii: "0") + UInt8(m % 10)
                m /= 10
                n += 1
            } while m > 0
            for i in stride(from: n - 1, through: 0, by: -1) { out.write(d[i]) }
        }
    }

    /// Writes the lowercase 8-4-4-4-12 form of two big-endian 64-bit halves (36 bytes).
    @inline(__always)
    static func writeUUID(_ a: UInt64, _ b: UInt64, to out: inout ByteCursor) {
        // `byteSwapped`: the text writer takes each half with its first byte lowest.
        out.write(count: UUIDText.count) { UUIDText.write(a.byteSwapped, b.byteSwapped, to: $0) }
    }

    /// Two independent 64-bit multiply-mix hashes over 8-byte little-endian words.
    public static func hash128(_ bytes: UnsafeBufferPointer<UInt8>, seed: UInt64) -> (UInt64, UInt64) {
        var h1: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ seed
        var h2: UInt64 = 0xC2B2_AE3D_27D4_EB4F ^ (seed &* 0x1656_67B1_9E37_79F9)
        let n = bytes.count
        var i = 0
        let raw = UnsafeRawBufferPointer(bytes)
        while i + 8 <= n {
            // loadUnaligned: the line's bytes have no alignment; i + 8 <= n keeps the read inside
            // the buffer. Little-endian words on every platform, so ids do not depend on the machine.
            let w = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            h1 = mix(h1 ^ w) &+ 0x2545_F491_4F6C_DD1D
            h2 = mix(h2 &+ (w &* 0x9FB2_1C65_1E98_DF25)) ^ h1
            i += 8
        }
        let tail = ByteWords.tail(bytes, from: i)
        h1 = mix(h1 ^ tail ^ UInt64(n))
        h2 = mix(h2 ^ (tail &* 0xFF51_AFD7_ED55_8CCD) ^ UInt64(n) ^ h1)
        h1 = mix(h1 ^ h2)
        return (h1, h2)
    }

    /// SplitMix64's finalizer.
    @inline(__always) static func mix(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
