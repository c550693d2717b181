import Foundation
import JSONCore

/// One event ready to send: a JSON object without `sentAt`/`writeKey` members.
///
/// The engine splices `sentAt` and `writeKey` into ``bytes`` at each attempt, so the bytes are
/// never decoded or re-encoded on the delivery path.
public struct EncodedEvent: Sendable {
    /// The event's JSON object bytes.
    public var bytes: [UInt8]
    /// The event's `messageId`, echoed in its ``EventOutcome``. A caller that matches outcomes by
    /// ``tag`` alone may pass `""`: the engine never reads it otherwise, and an empty string
    /// costs nothing to move between threads (mr-replay does this).
    public var messageId: String
    /// Events sharing an ordering key are delivered in submit order (usually `anonymousId ?? userId`).
    public var orderingKey: String?
    /// An opaque caller value echoed in this event's outcome (for example an input position).
    public var tag: UInt64

    /// Caller guarantees `bytes` is one valid JSON object with no sentAt/writeKey member (the replay hot path).
    public init(uncheckedBytes: [UInt8], messageId: String, orderingKey: String?, tag: UInt64) {
        self.bytes = uncheckedBytes
        self.messageId = messageId
        self.orderingKey = orderingKey
        self.tag = tag
    }

    /// Validates with ObjectLayout, removes sentAt/writeKey, reads messageId (generates a fresh
    /// ``MessageID`` when absent and inserts it) and orderingKey = anonymousId ?? userId.
    public init(validating bytes: [UInt8], tag: UInt64 = 0) throws(JSONError) {
        let result: Result<(bytes: [UInt8], messageId: String, key: String?), JSONError> = bytes.withUnsafeBufferPointer {
            buffer in
            do throws(JSONError) {
                let layout = try ObjectLayout.scanDocument(buffer)
                var editor = ObjectEditor(layout)
                editor.remove("sentAt", in: buffer)
                editor.remove("writeKey", in: buffer)
                var messageId = layout.string("messageId", in: buffer) ?? ""
                if messageId.isEmpty {
                    messageId = MessageID.generate(at: Date())
                    editor.set("messageId", string: messageId, in: buffer)
                }
                let anonymous = layout.string("anonymousId", in: buffer).flatMap { $0.isEmpty ? nil : $0 }
                let user = layout.string("userId", in: buffer).flatMap { $0.isEmpty ? nil : $0 }
                let out = editor.hasEdits ? editor.rendered(buffer) : Array(buffer[layout.range])
                return .success((out, messageId, anonymous ?? user))
            } catch {
                return .failure(error)
            }
        }
        let value = try result.get()
        self.init(uncheckedBytes: value.bytes, messageId: value.messageId, orderingKey: value.key, tag: tag)
    }
}
