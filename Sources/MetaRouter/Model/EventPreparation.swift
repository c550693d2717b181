import Foundation
import JSONCore
@_spi(PerLine) import MetaRouterDelivery
import Timestamps

/// The SDK's enrichment of a new event: identity, context, messageId and timestamp.
package enum EventPreparation {
    /// Returns `event` ready to queue:
    /// - `anonymousId`, `userId` and `groupId` are filled from `identity` where missing;
    /// - an alias keeps the MetaRouter SDKs' shape: its `userId` is the new user and its
    ///   `anonymousId` the id it links to that user; no `previousId` is added (the SDKs send none);
    /// - `messageId` is generated (`<epochMillis>-<uuid>`) and `timestamp` set to `now` when missing;
    /// - `context` gets `library` and the configured parts, plus `device.advertisingId` when set;
    /// - a captured `sentAt` is removed (the engine stamps it at each attempt).
    package static func prepare(
        _ event: Event, identity: Identity, context: ContextInfo, now: Date, uuid: UUID = UUID()
    ) -> Event {
        var e = event
        if e.anonymousId == nil { e.anonymousId = identity.anonymousId }
        if e.userId == nil, e.type != .alias, let userId = identity.userId { e.userId = userId }
        if e.groupId == nil, let groupId = identity.groupId { e.groupId = groupId }
        if e.messageId == nil { e.messageId = MessageID.generate(at: now, uuid: uuid) }
        if e.timestamp == nil { e.timestamp = Timestamp.iso8601(now) }
        let ad: String?? = identity.advertisingId.map { .some($0) } ?? .none
        e.context = context.merged(into: e.context, advertisingId: ad)
        e.sentAt = nil
        return e
    }
}
