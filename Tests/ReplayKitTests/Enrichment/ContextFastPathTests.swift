import JSONCore
import ReplayKit
import Testing

/// The context fast path against the general path (`enrichContext`), on every combination of
/// the members that decide between them, as SDKs write them and as they should not.
struct ContextFastPathTests {
    static let apps = [nil, #""app":{"name":"Shop","version":"3.1"}"#, #""app":null"#, #""app":1"#]
    static let devices = [
        nil, #""device":{"manufacturer":"Apple","model":"iPhone 15 Pro","type":"phone"}"#, #""device":null"#,
        #""device":{"model":"Pixel 8","advertisingId":null}"#, #""device":{"advertisingId":"7A3CBB5E-9F16-4A6D-8E4B-2C1F0D9E8A77"}"#,
        #""device":{"advertisingId":"00000000-0000-0000-0000-000000000000","adTrackingEnabled":false}"#,
        #""device":{"adv\u0065rtisingId":"7A3CBB5E-9F16-4A6D-8E4B-2C1F0D9E8A77"}"#,
        #""device":{"advertisingId":"7A3CBB5E-9F16-4A6D-8E4B-2C1F0D9E8A77","advertisingId":null}"#, #""device":"phone""#,
        #""device":{}"#,
    ]
    static let oses = [nil, #""os":{"name":"iOS","version":"18.1"}"#, #""os":null"#, #""os":[]"#]
    static let libraries = [nil, #""library":{"name":"metarouter-ios-sdk","version":"1.2.1"}"#, #""library":null"#]
    static let others = [nil, #""locale":"en_US","timezone":"America\/Denver""#, #""ip":"1","ip":"2""#, #""\u006fs":{}"#]

    /// Every combination, members in a few orders.
    static func contexts() -> [String] {
        var out: [String] = []
        for app in apps {
            for device in devices {
                for os in oses {
                    for library in libraries {
                        for other in others {
                            let members = [app, device, os, library, other].compactMap { $0 }
                            out.append("{" + members.joined(separator: ",") + "}")
                            out.append("{" + members.reversed().joined(separator: ",") + "}")
                        }
                    }
                }
            }
        }
        return out
    }

    /// Whether the fast path must take `text`: nothing but mr-replay's library to add, if that.
    static func isSimple(_ text: String) -> Bool {
        let declines = [
            #""app":1"#, #""os":[]"#, #""library":null"#, #""device":"phone""#, #"\u0065"#, #"\u006f"#, #""advertisingId":"7"#,
            #""advertisingId":"0"#,
        ]
        return !declines.contains { text.contains($0) }
    }

    @Test func rendersWhatTheGeneralPathRenders() throws {
        var preparer = Enricher(config: try testConfig(), identity: try IdentityStore(stateDirectory: nil)).preparer
        var taken = 0
        for text in Self.contexts() {
            let bytes = Array(text.utf8)
            try bytes.withUnsafeBufferPointer { buf in
                let ctx = try ObjectLayout.scanDocument(buf)
                let quick = preparer.contextWithLibraryOnly(ctx, buf)
                #expect((quick != nil) == Self.isSimple(text), "\(text)")
                guard let quick else { return }
                taken += 1
                guard case .success(let general) = preparer.enrichContext(ctx, buf) else {
                    Issue.record("the general path refused what the fast path took: \(text)")
                    return
                }
                #expect(String(decoding: quick, as: UTF8.self) == String(decoding: general, as: UTF8.self), "\(text)")
            }
        }
        #expect(taken > 500)
    }
}
