import Foundation
import Testing
import VendorExports

/// Stable messageIds for events without a vendor id: MurmurHash3 x64-128 of the record's bytes.
@Suite("Derived messageIds")
struct DerivedIdTests {
    /// Reference values of MurmurHash3 x64-128, seed 0, from Python's `mmh3.hash128(x, 0, True)`.
    static let vectors: [(String, UInt64, UInt64)] = [
        ("", 0, 0),
        ("hello", 0xcbd8_a7b3_41bd_9b02, 0x5b1e_906a_48ae_1d19),
        ("The quick brown fox jumps over the lazy dog", 0xe34b_bc7b_bc07_1b6c, 0x7a43_3ca9_c49a_9347),
    ]

    @Test("MurmurHash3 x64-128 matches the reference", arguments: 0..<3)
    func murmur(_ k: Int) {
        let (text, h1, h2) = Self.vectors[k]
        let bytes = Array(text.utf8)
        let (a, b) = bytes.withUnsafeBytes { Murmur3.hash128($0, seed: 0) }
        #expect(a == h1 && b == h2, "\(text): \(String(a, radix: 16)) \(String(b, radix: 16))")
    }

    @Test("MurmurHash3 handles every tail length (bytes 0..<31 against the reference)")
    func murmurTails() {
        let bytes = (0..<31).map { UInt8($0) }
        let (a, b) = bytes.withUnsafeBytes { Murmur3.hash128($0, seed: 0) }
        #expect(a == 0x053d_d3e1_a32c_d094 && b == 0x9ee5_9aef_b400_5490, "\(String(a, radix: 16)) \(String(b, radix: 16))")
    }

    /// Records whose events have no vendor id, one per recipe that derives ids.
    static let idless: [(ExportFormat, String)] = [
        (.mixpanel, #"{"event":"Played","properties":{"time":1740823198,"distinct_id":"u1","song":"A"}}"#),
        (.ga4, #"{"event_name":"level_up","event_timestamp":"1740823198123456","user_pseudo_id":"1.2","event_params":[]}"#),
        (
            .mparticle,
            #"{"events":[{"event_type":"custom_event","data":{"event_name":"A","timestamp_unixtime_ms":"1740823198123"}},{"event_type":"custom_event","data":{"event_name":"A","timestamp_unixtime_ms":"1740823198123"}}],"mpid":"7"}"#
        ),
        (
            .rudderstack,
            #"{"userId":"","payload":{"batch":[{"type":"track","event":"A","anonymousId":"a","timestamp":"2025-03-01T09:59:58Z"},{"type":"track","event":"A","anonymousId":"a","timestamp":"2025-03-01T09:59:58Z"}]},"messageId":""}"#
        ),
    ]

    @Test("the same record gets the same ids every time, from any recipe instance", arguments: 0..<4)
    func stable(_ k: Int) {
        let (format, record) = Self.idless[k]
        let first = Convert.messageIds(format, record)
        var reused = ExportRecipe(format)
        _ = Convert.events(&reused, Fixtures.records(format).first ?? "{}")
        let again = (try? Convert.events(&reused, record).get())?.compactMap { Self.messageId($0) } ?? []
        #expect(!first.isEmpty)
        #expect(first == again, "\(format): \(first) vs \(again)")
        #expect(first == Convert.messageIds(format, "  " + record + "\r\n"), "whitespace around the record changes nothing")
    }

    @Test("different records get different ids; events of one record get different ids", arguments: 0..<4)
    func distinct(_ k: Int) {
        let (format, record) = Self.idless[k]
        let ids = Convert.messageIds(format, record)
        // The same record with one more member.
        let changed = Convert.messageIds(format, "{\"x\":1," + record.dropFirst())
        #expect(Set(ids).count == ids.count, "\(format): \(ids)")
        #expect(Set(ids).isDisjoint(with: changed), "\(format): \(ids) vs \(changed)")
    }

    @Test("a duplicated line keeps one id per event, the id of its original", arguments: 0..<4)
    func duplicates(_ k: Int) {
        let (format, record) = Self.idless[k]
        var recipe = ExportRecipe(format)
        let first = (try? Convert.events(&recipe, record).get())?.compactMap { Self.messageId($0) } ?? []
        let other = (try? Convert.events(&recipe, Self.idless[(k + 1) % 4].1).get()) ?? []
        let second = (try? Convert.events(&recipe, record).get())?.compactMap { Self.messageId($0) } ?? []
        _ = other
        #expect(!first.isEmpty && first == second, "\(format): \(first) vs \(second)")
    }

    @Test("derived ids are lowercase RFC 9562 version-8 UUIDs", arguments: 0..<4)
    func uuidLayout(_ k: Int) {
        let (format, record) = Self.idless[k]
        for id in Convert.messageIds(format, record) {
            let chars = Array(id)
            #expect(chars.count == 36 && id == id.lowercased(), "\(id)")
            #expect(UUID(uuidString: id) != nil, "\(id)")
            #expect(chars.count == 36 && chars[14] == "8", "version nibble of \(id)")
            #expect(chars.count == 36 && "89ab".contains(chars[19]), "variant of \(id)")
        }
    }

    @Test("the same bytes read by two recipes get different ids")
    func seededByRecipe() {
        #expect(Set(ExportFormat.allCases.map { DerivedIds.seed($0) }).count == ExportFormat.allCases.count)
        let bytes = Array(#"{"a":1}"#.utf8)
        let a = bytes.withUnsafeBufferPointer { DerivedIds.bits($0, seed: DerivedIds.seed(.ga4), index: nil) }
        let b = bytes.withUnsafeBufferPointer { DerivedIds.bits($0, seed: DerivedIds.seed(.mixpanel), index: nil) }
        #expect(a != b)
    }

    @Test("a vendor id is used as it is, never replaced by a derived one")
    func vendorIdsWin() {
        let record = #"{"event":"Played","properties":{"time":1740823198,"distinct_id":"u1","$insert_id":"abc-123"}}"#
        #expect(Convert.messageIds(.mixpanel, record) == ["abc-123"])
    }

    static func messageId(_ event: String) -> String? {
        guard let data = event.data(using: .utf8), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            return nil
        }
        return object["messageId"] as? String
    }
}
