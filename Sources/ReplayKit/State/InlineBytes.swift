import Foundation
@_spi(PerLine) import MetaRouterDelivery

/// A byte string kept inline when it has at most ``inlineCapacity`` bytes (ids usually do) or is
/// a UUID's text (SDKs make their anonymousIds so), so keeping it touches and allocates no heap
/// memory; another one is kept in an array.
///
/// The one layout of short byte strings: identity values (``IdentityValue``), the keys of
/// ``IdentityMap`` and the key and value of a ``LearnedRow``. 24 bytes: how the bytes are kept
/// shares its word with the array reference (``Storage`` packs into the reference's spare bits).
package struct InlineBytes: Equatable {
    /// The most bytes kept inline (a UUID's text is longer, and is kept in 16 bytes all the same).
    static let inlineCapacity = 16
    /// ``UUIDText/count``, a constant of this module: every probe compares a length with it, and
    /// reading another module's constant is a call.
    package static let uuidTextCount = 36

    /// The first (up to) 16 bytes, zero-padded, or a UUID's 16 bytes. A homogeneous tuple of
    /// `UInt8`, so its memory is bound to `UInt8`.
    package typealias Head = (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)

    /// Where the bytes are.
    private enum Storage: Equatable {
        /// In ``head``: this many.
        case inline(UInt8)
        /// A UUID's text, of this form, whose 16 bytes (``UUIDText/parse(_:)``) are ``head``.
        case uuid(UUIDForm)
        /// All of them (``head`` holds the first 16 too).
        case large([UInt8])
    }

    /// How a UUID's text is written: the case of its letters, and whether it is quoted (an
    /// identity value is kept as its JSON string).
    enum UUIDForm: UInt8 {
        case lowercase, uppercase, quotedLowercase, quotedUppercase

        var isQuoted: Bool { self == .quotedLowercase || self == .quotedUppercase }
        var isUppercase: Bool { self == .uppercase || self == .quotedUppercase }
        /// The number of bytes of the text.
        var count: Int { isQuoted ? InlineBytes.uuidTextCount + 2 : InlineBytes.uuidTextCount }
    }

    /// What ``matches(_:_:)`` compares with, made once per lookup: the head the bytes would be
    /// kept with, and their form when they are a UUID's text.
    package struct Probe {
        fileprivate let words: (UInt64, UInt64)
        fileprivate let uuid: UUIDForm?
    }

    private var head: Head
    private var storage: Storage

    package init(_ bytes: UnsafeBufferPointer<UInt8>) {
        let probe = Self.probe(bytes)
        // Both are 16 bytes of a trivial type: reinterpreted, the words are the head's bytes.
        // `first16`'s words hold the bytes in memory order, zero-padded; a UUID's words are its
        // bytes, as `UUIDText` reads and writes them.
        head = unsafeBitCast(probe.words, to: Head.self)
        if let form = probe.uuid {
            storage = .uuid(form)
        } else {
            storage = bytes.count > Self.inlineCapacity ? .large(Array(bytes)) : .inline(UInt8(bytes.count))
        }
    }

    /// ``head`` as two words, for comparing keys a word at a time.
    @inline(__always)
    private static func words(_ head: Head) -> (UInt64, UInt64) { unsafeBitCast(head, to: (UInt64, UInt64).self) }

    /// What ``matches(_:_:)`` compares with: `bytes`' head as words, and their UUID form.
    @inline(__always)
    package static func probe(_ bytes: UnsafeBufferPointer<UInt8>) -> Probe {
        if bytes.count >= uuidTextCount, bytes.count <= uuidTextCount + 2, let uuid = uuid(bytes) {
            return Probe(words: (uuid.first, uuid.second), uuid: uuid.form)
        }
        return Probe(words: ByteWords.first16(bytes), uuid: nil)
    }

    /// The UUID whose text `bytes` are (quoted or not), and their form.
    private static func uuid(_ bytes: UnsafeBufferPointer<UInt8>) -> (first: UInt64, second: UInt64, form: UUIDForm)? {
        let quoted: Bool
        switch bytes.count {
        case uuidTextCount:
            quoted = false
        case uuidTextCount + 2:
            guard bytes[0] == UInt8(ascii: "\""), bytes[uuidTextCount + 1] == UInt8(ascii: "\"") else { return nil }
            quoted = true
        default:
            return nil
        }
        // `bytes` holds uuidTextCount bytes from the text's start (after the opening quote).
        guard let parsed = UUIDText.parse(bytes.baseAddress! + (quoted ? 1 : 0)) else { return nil }
        let form: UUIDForm =
            quoted ? (parsed.uppercase ? .quotedUppercase : .quotedLowercase) : (parsed.uppercase ? .uppercase : .lowercase)
        return (parsed.first, parsed.second, form)
    }

    /// Whether these are the bytes `bytes`, whose ``probe(_:)`` is `probe`.
    @inline(__always)
    package func matches(_ probe: Probe, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard Self.words(head) == probe.words else { return false }
        switch storage {
        case .inline(let count):
            return Int(count) == bytes.count
        case .uuid(let form):
            // Equal words and forms are equal texts (a form writes its UUID one way only).
            return probe.uuid == form
        case .large(let large):
            guard large.count == bytes.count else { return false }
            // Both buffers hold `bytes.count` (> 16) bytes, so memcmp reads inside both.
            return large.withUnsafeBufferPointer { memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }
        }
    }

    /// Whether both hold the same bytes (a byte string is kept one way only).
    package static func == (a: InlineBytes, b: InlineBytes) -> Bool { words(a.head) == words(b.head) && a.storage == b.storage }

    /// Calls `body` with the bytes.
    @inline(__always)
    package func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        switch storage {
        case .large(let large):
            return try large.withUnsafeBufferPointer(body)
        case .inline(let count):
            return try withUnsafeBytes(of: head) { raw in
                // `Head` is a homogeneous tuple of UInt8, whose memory is bound to UInt8, so the
                // typed pointer is valid for its 16 bytes while `raw` lives (this closure);
                // count <= 16.
                assert(MemoryLayout<Head>.size == 16 && MemoryLayout<Head>.alignment == 1)
                return try body(UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: Int(count)))
            }
        case .uuid(let form):
            return try withUUIDText(form, body)
        }
    }

    /// Calls `body` with the text of the UUID in ``head``, written in `form` on the stack.
    private func withUUIDText<R>(_ form: UUIDForm, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let (first, second) = Self.words(head)
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.uuidTextCount + 2) { room in
            // `room` has uuidTextCount + 2 bytes: the text (at 0, or at 1 after a quote) and a
            // closing quote fit. UInt8 is trivial, so the stores initialize what `body` reads,
            // exactly form.count bytes from the start; the pointer does not outlive `room`.
            let base = room.baseAddress!
            let text = form.isQuoted ? base + 1 : base
            UUIDText.write(first, second, to: text, uppercase: form.isUppercase)
            if form.isQuoted {
                base[0] = UInt8(ascii: "\"")
                text[Self.uuidTextCount] = UInt8(ascii: "\"")
            }
            return try body(UnsafeBufferPointer(start: base, count: form.count))
        }
    }

    /// The bytes as an array.
    package var array: [UInt8] { withBytes { Array($0) } }
}
