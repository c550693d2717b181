import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
import ReplayKit
import Testing

/// Aliases as the MetaRouter SDKs send them (no `previousId`: the event's own anonymousId is
/// linked to the new userId), and placeholder ids, through one enricher. End-to-end replays of
/// each SDK's queue are in `SDKQueueReplayTests`.
struct SDKAliasTests {
    static let t = "\"timestamp\":\"2024-01-01T00:00:00Z\""

    func enricher(_ yaml: String = "") throws -> Enricher {
        Enricher(config: try testConfig(yaml), identity: try IdentityStore(stateDirectory: nil))
    }

    /// Enriches `lines` in order and returns the events' `userId` and `groupId`.
    func ids(_ e: Enricher, _ lines: [String]) throws -> [(user: String?, group: String?)] {
        try lines.enumerated().map { i, line in
            let o = try eventObject(enrich(e, line, lineNumber: i + 1, sequence: UInt64(i + 1)))
            return (o["userId"]?.stringValue, o["groupId"]?.stringValue)
        }
    }

    @Test(arguments: [
        // iOS and React Native: userId and anonymousId.
        #"{"type":"alias","userId":"U2","anonymousId":"A","messageId":"m1",\#(t)}"#,
        // Android: explicit nulls for what it does not have.
        #"{"type":"alias","event":null,"userId":"U2","anonymousId":"A","groupId":null,"traits":null,"properties":null,"messageId":"m1",\#(t)}"#,
        // iOS with a previous user id the app passed, in properties.
        #"{"type":"alias","userId":"U2","anonymousId":"A","properties":{"previousId":"U1"},"messageId":"m1",\#(t)}"#,
    ])
    func anSDKAliasIsSentAsWritten(line: String) throws {
        let o = try eventObject(enrich(try enricher(), line))
        #expect(o["type"]?.stringValue == "alias")
        #expect(o["userId"]?.stringValue == "U2" && o["anonymousId"]?.stringValue == "A")
        #expect(o["previousId"] == nil, "replay sends what the SDK sent: no previousId is added")
    }

    @Test(arguments: [
        (#"{"type":"alias","anonymousId":"A",\#(t)}"#, "needs a non-empty \"userId\" (the user it links to)"),
        (#"{"type":"alias","userId":"",\#(t),"anonymousId":"A"}"#, "needs a non-empty \"userId\" (the user it links to)"),
        // Judged as written: the anonymousId enrichment would derive from the userId is no previous id.
        (#"{"type":"alias","userId":"U",\#(t)}"#, "needs a non-empty \"previousId\" or \"anonymousId\""),
        (#"{"type":"alias","userId":"U","anonymousId":"","previousId":null,\#(t)}"#, "needs a non-empty \"previousId\" or \"anonymousId\""),
        (#"{"type":"alias",\#(t)}"#, "needs a non-empty \"userId\", and a non-empty \"previousId\" or \"anonymousId\""),
    ])
    func anAliasWithoutItsIdsSaysWhichIsMissing(line: String, detail: String) throws {
        let result = enrich(try enricher(), line)
        guard case .deadLetter(let reason, let got) = result else {
            Issue.record("not dead-lettered: \(line)")
            return
        }
        #expect(reason == "invalid_alias")
        #expect(got.contains(detail), "detail: \(got)")
    }

    @Test func anSDKAliasMovesCarryForwardAndTheGroupFromItsAnonymousId() throws {
        let e = try enricher()
        let got = try ids(
            e,
            [
                #"{"type":"identify","anonymousId":"A","userId":"U1",\#(Self.t)}"#,
                #"{"type":"group","anonymousId":"A","groupId":"G1",\#(Self.t)}"#,
                #"{"type":"alias","anonymousId":"A","userId":"U2",\#(Self.t)}"#,
                #"{"type":"track","anonymousId":"A","event":"Viewed",\#(Self.t)}"#,
                #"{"type":"track","userId":"U2","event":"Paid",\#(Self.t)}"#,
            ])
        #expect(got[2].user == "U2" && got[2].group == "G1", "the alias is the new user's, in the device's group")
        #expect(got[3].user == "U2" && got[3].group == "G1", "later events of the device carry the new user")
        #expect(got[4].group == "G1", "the new user's other events carry the moved group")
        #expect(try e.identity.userId(forAnonymousId: "A") == "U2")
        #expect(try e.identity.groupId(forUserId: "U1") == "G1", "the previous user keeps their own group")
    }

    @Test func anAliasWithoutAGroupToMoveCarriesTheUserOnly() throws {
        let e = try enricher()
        let got = try ids(
            e,
            [
                #"{"type":"alias","anonymousId":"A","userId":"U2",\#(Self.t)}"#,
                #"{"type":"screen","anonymousId":"A","name":"Home",\#(Self.t)}"#,
            ])
        #expect(got[0].user == "U2" && got[0].group == nil)
        #expect(got[1].user == "U2" && got[1].group == nil)
    }

    @Test func theIOSPropertiesPreviousIdIsThePreviousUser() throws {
        let e = try enricher()
        let got = try ids(
            e,
            [
                #"{"type":"group","userId":"U1","groupId":"G1",\#(Self.t)}"#,
                #"{"type":"alias","anonymousId":"A","userId":"U2","properties":{"previousId":"U1"},\#(Self.t)}"#,
                #"{"type":"track","anonymousId":"U1","event":"Viewed",\#(Self.t)}"#,
                #"{"type":"track","anonymousId":"A","event":"Viewed",\#(Self.t)}"#,
            ])
        #expect(got[1].user == "U2" && got[1].group == "G1", "U1's group moves to U2")
        #expect(got[2].user == "U2", "the previous id, as an anonymousId, carries the new user")
        #expect(got[3].user == "U2" && got[3].group == "G1", "and so does the alias's own anonymousId")
    }

    @Test func aTopLevelPreviousIdStillWins() throws {
        let e = try enricher()
        _ = try ids(
            e,
            [
                #"{"type":"alias","anonymousId":"A","previousId":"P","userId":"U","properties":{"previousId":"Q"},\#(Self.t)}"#
            ])
        #expect(try e.identity.userId(forAnonymousId: "P") == "U")
        #expect(try e.identity.userId(forAnonymousId: "Q") == nil)
        #expect(try e.identity.userId(forAnonymousId: "A") == "U")
    }

    @Test func aPlaceholderAnonymousIdIsSentButIsNobodysIdentity() throws {
        let e = try enricher()
        // Device 1, before its identity loaded, logs in; device 2's early events say "unknown" too.
        let identify = enrich(e, #"{"type":"identify","anonymousId":"unknown","userId":"user-rn-A",\#(Self.t)}"#, sequence: 1)
        let alias = enrich(e, #"{"type":"alias","anonymousId":"unknown","userId":"user-rn-A",\#(Self.t)}"#, sequence: 2)
        let other = try eventObject(enrich(e, #"{"type":"track","anonymousId":"unknown","event":"Opened",\#(Self.t)}"#, sequence: 3))
        #expect(try eventObject(identify)["anonymousId"]?.stringValue == "unknown", "sent as written")
        #expect(try eventObject(alias)["anonymousId"]?.stringValue == "unknown", "a valid SDK alias, sent as written")
        #expect(other["anonymousId"]?.stringValue == "unknown")
        #expect(other["userId"] == nil, "no user is lent through a placeholder")
        #expect(try e.identity.userId(forAnonymousId: "unknown") == nil, "the placeholder is never taught")
    }

    @Test func aPlaceholderLineIsKeyedLikeALineWithoutAnAnonymousId() throws {
        let e = try enricher()
        func laneKey(_ line: String) -> UInt64? {
            let bytes = Array(line.utf8)
            let out = EventBuffer()
            let r = bytes.withUnsafeBufferPointer { e.process($0, lineNumber: 1, sequence: 1, into: &out.bytes) }
            if case .event(let ev) = r { return ev.laneKey }
            return nil
        }
        let placeholderWithUser = laneKey(#"{"type":"track","event":"E","anonymousId":"unknown","userId":"u-1",\#(Self.t)}"#)
        let userOnly = laneKey(#"{"type":"track","event":"E","userId":"u-1",\#(Self.t)}"#)
        let placeholderOnly = laneKey(#"{"type":"track","event":"E","anonymousId":"unknown",\#(Self.t)}"#)
        let deviceLine = laneKey(#"{"type":"track","event":"E",\#(Self.t)}"#)
        #expect(placeholderWithUser != nil && placeholderWithUser == userOnly, "keyed by the id derived from the userId")
        #expect(placeholderOnly != nil && placeholderOnly == deviceLine, "keyed by the device id")
        #expect(placeholderOnly != FNV1a.hash("unknown".utf8))
    }
}
