import JSONCore

/// Reads an event's own `messageId` without enriching it.
enum MessageIdProbe {
    /// The `messageId` of the event line `buf`, when it is an object with a non-empty string or
    /// numeric one.
    static func messageId(of buf: UnsafeBufferPointer<UInt8>) -> String? {
        guard let layout = try? ObjectLayout.scanDocument(buf), let m = layout.member("messageId", in: buf) else { return nil }
        return IdRef(m, buf)?.string(buf)
    }
}
