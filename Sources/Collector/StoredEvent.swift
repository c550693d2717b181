import JSONCore

/// One accepted event on its way to a store.
struct StoredEvent: Sendable {
    /// The event object as one line of compact JSON (no newline).
    var json: [UInt8]
    /// Its `messageId`, if it had one.
    var messageId: String?

    /// The event at `range` of `body`, byte for byte, unless it spans lines: then it is
    /// re-encoded compactly (JSONCore keeps numbers and strings exact).
    init(_ body: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, messageId: String?) {
        let slice = UnsafeBufferPointer(rebasing: body[range])
        if slice.contains(0x0A) || slice.contains(0x0D), let value = try? JSONParser.parse(slice) {
            var out: [UInt8] = []
            JSONWriter.write(value, into: &out)
            json = out
        } else {
            json = Array(slice)
        }
        self.messageId = messageId
    }
}
