@_spi(PerLine) import MetaRouterDelivery

/// Room for one derived anonymousId's text (``DerivedAnonymousId``), reused line after line,
/// so that deriving one allocates nothing.
///
/// The text ``derived(userId:)`` returns is valid until its next call, while the buffer lives:
/// the preparer uses it for the line it prepares (the event's anonymousId and the edit that
/// writes it), and is done with it before it prepares the next line; the shard router, for the
/// line's key. Not thread-safe: each preparer and router has its own.
package final class DerivedIdBuffer {
    /// The 36 bytes, initialized once and overwritten by each derivation.
    private let text: UnsafeMutablePointer<UInt8>

    package init() {
        text = .allocate(capacity: UUIDText.count)
        text.initialize(repeating: 0, count: UUIDText.count)
    }

    deinit { text.deallocate() }

    /// The 36 bytes of the derived anonymousId of `userId`, valid until the next call.
    package func derived(userId: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        DerivedAnonymousId.write(userId: userId, to: text)
        return UnsafeBufferPointer(start: text, count: UUIDText.count)
    }
}
