/// Request bodies shaped exactly like Segment's official client libraries send them.
package enum Fixtures {
    /// A body as analytics-python 2.x posts it to `/v1/batch` (with Basic auth `writeKey:`):
    /// `{"batch":[...],"sentAt":...}`, each event with `messageId`, `timestamp`, `context.library`,
    /// `integrations`, `type`, and `anonymousId: null` when only a userId is known.
    package static let analyticsPythonBody = """
        {"batch": [{"integrations": {}, "anonymousId": null, "properties": {"revenue": 39.95, "currency": "USD", \
        "items": 3, "big": 12345678901234567890, "exact": 0.1000000000000000055511151231257827, "note": "caf\\u00e9 \\ud83d\\ude00 \u{65e5}\u{672c}"}, \
        "timestamp": "2026-11-22T06:00:00.123456+00:00", "context": {"library": {"name": "analytics-python", \
        "version": "2.3.3"}}, "userId": "user-1", "type": "track", "event": "Order Completed", \
        "messageId": "9d1a1f2e-6b7c-4a8f-9e0d-1f2a3b4c5d6e"}, \
        {"integrations": {"All": true}, "anonymousId": null, "timestamp": "2026-11-22T06:00:01+00:00", \
        "context": {"library": {"name": "analytics-python", "version": "2.3.3"}, "ip": "10.0.0.1"}, \
        "userId": "user-1", "type": "identify", "traits": {"email": "a@example.com", "plan": "pro"}, \
        "messageId": "1c2d3e4f-0000-4a8f-9e0d-000000000002"}, \
        {"integrations": {}, "anonymousId": "anon-7", "properties": {"path": "/pricing"}, \
        "timestamp": "2026-11-22T06:00:02+00:00", "context": {"library": {"name": "analytics-python", "version": "2.3.3"}}, \
        "userId": null, "type": "page", "category": "Docs", "name": "Pricing", \
        "messageId": "1c2d3e4f-0000-4a8f-9e0d-000000000003"}, \
        {"integrations": {}, "anonymousId": null, "timestamp": "2026-11-22T06:00:03+00:00", \
        "context": {"library": {"name": "analytics-python", "version": "2.3.3"}}, "userId": "user-1", "type": "group", \
        "groupId": "org-9", "traits": {"name": "Initech"}, "messageId": "1c2d3e4f-0000-4a8f-9e0d-000000000004"}, \
        {"integrations": {}, "anonymousId": null, "timestamp": "2026-11-22T06:00:04+00:00", \
        "context": {"library": {"name": "analytics-python", "version": "2.3.3"}}, "userId": "user-1", "type": "alias", \
        "previousId": "anon-7", "messageId": "1c2d3e4f-0000-4a8f-9e0d-000000000005"}, \
        {"integrations": {}, "anonymousId": "anon-7", "properties": {}, "timestamp": "2026-11-22T06:00:05+00:00", \
        "context": {"library": {"name": "analytics-python", "version": "2.3.3"}}, "userId": null, "type": "screen", \
        "name": "Home", "messageId": "1c2d3e4f-0000-4a8f-9e0d-000000000006"}], \
        "sentAt": "2026-11-22T06:00:06.000001+00:00"}
        """

    /// The number of events in `analyticsPythonBody`.
    package static let analyticsPythonEventCount = 6

    /// A minimal valid track event as JSON text.
    package static func track(_ id: String, userId: String = "u1", extra: String = "") -> String {
        "{\"type\":\"track\",\"event\":\"E\",\"userId\":\"\(userId)\",\"messageId\":\"\(id)\"\(extra)}"
    }

    /// A batch body around `events` (JSON texts).
    package static func batch(_ events: [String], extra: String = "") -> String {
        "{\"batch\":[" + events.joined(separator: ",") + "]\(extra)}"
    }
}
