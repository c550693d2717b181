import Foundation
import JSONCore
import ReplayKit
import TestSupport
import Testing

/// IDSync-style transitions read from lines, through one enricher: login, logout, modify and
/// alias (see docs/enrichment.md, "Identity transitions"). End-to-end runs are in
/// `IdentityTransitionRunTests`.
final class IdentityTransitionTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    let t = "\"timestamp\":\"2024-01-01T00:00:00Z\""
    let logout = "enrichment: { identity: { logout_events: [\"Signed Out\", \"Logged Out\"] } }"

    /// Enriches `lines` in order (sequence = line number) and returns the events' `userId` and
    /// `groupId` (nil when absent).
    func ids(_ e: Enricher, _ lines: [String], firstSequence: UInt64 = 1) throws -> [(user: String?, group: String?)] {
        try lines.enumerated().map { i, line in
            let o = try eventObject(enrich(e, line, lineNumber: i + 1, sequence: firstSequence + UInt64(i)))
            return (o["userId"]?.stringValue, o["groupId"]?.stringValue)
        }
    }

    func track(_ anon: String, _ name: String = "Viewed") -> String {
        "{\"type\":\"track\",\"event\":\"\(name)\",\"anonymousId\":\"\(anon)\",\(t)}"
    }

    func identify(_ anon: String, _ user: String, traits: String = "{}") -> String {
        "{\"type\":\"identify\",\"anonymousId\":\"\(anon)\",\"userId\":\"\(user)\",\"traits\":\(traits),\(t)}"
    }

    @Test func logoutEventCarriesTheUserAndEndsCarryForwardAfterIt() throws {
        let e = Enricher(config: try testConfig(logout), identity: try IdentityStore(stateDirectory: nil))
        let got = try ids(
            e,
            [
                identify("A", "U1"),
                "{\"type\":\"group\",\"anonymousId\":\"A\",\"groupId\":\"G1\",\(t)}",
                track("A", "Signed Out"),
                track("A"),
                "{\"type\":\"page\",\"anonymousId\":\"A\",\(t)}",
                "{\"type\":\"group\",\"anonymousId\":\"A\",\"groupId\":\"G2\",\(t)}",
                track("A"),
            ])
        #expect(got[2].user == "U1" && got[2].group == "G1", "the logout event happened while logged in")
        #expect(got[3].user == nil && got[3].group == nil)
        #expect(got[4].user == nil && got[4].group == nil)
        // A group call while logged out teaches no user's group.
        #expect(try e.identity.groupId(forUserId: "U1") == "G1")
        #expect(got[6].user == nil && got[6].group == nil)
    }

    @Test func onlyTrackEventsWithAConfiguredNameLogOut() throws {
        let e = Enricher(config: try testConfig(logout), identity: try IdentityStore(stateDirectory: nil))
        let got = try ids(
            e,
            [
                identify("A", "U1"),
                "{\"type\":\"page\",\"name\":\"Signed Out\",\"anonymousId\":\"A\",\(t)}",
                "{\"type\":\"screen\",\"event\":\"Signed Out\",\"anonymousId\":\"A\",\(t)}",
                track("A", "Signed out"),
                track("A", "Signed Out "),
                track("A", "Signed"),
                track("A"),
                // An escaped spelling is the same name.
                track("A", "Logged\\u0020Out"),
                track("A"),
            ])
        #expect(got[1...6].allSatisfy { $0.user == "U1" })
        #expect(got[7].user == "U1")
        #expect(got[8].user == nil)
    }

    @Test func withoutLogoutEventsNothingEndsCarryForward() throws {
        let e = Enricher(config: try testConfig(), identity: try IdentityStore(stateDirectory: nil))
        let got = try ids(e, [identify("A", "U1"), track("A", "Signed Out"), track("A")])
        #expect(got[2].user == "U1")
    }

    @Test func logoutEndsOnlyItsOwnAnonymousId() throws {
        let e = Enricher(config: try testConfig(logout), identity: try IdentityStore(stateDirectory: nil))
        let got = try ids(e, [identify("A", "U1"), identify("B", "U1"), track("A", "Signed Out"), track("A"), track("B")])
        #expect(got[3].user == nil)
        #expect(got[4].user == "U1", "another device of the same user stays logged in")
    }

    @Test func loginAsSomeoneElseCarriesNothingOfThePreviousUser() throws {
        let e = Enricher(config: try testConfig(), identity: try IdentityStore(stateDirectory: nil))
        _ = try ids(
            e,
            [
                identify("A", "U1", traits: "{\"email\":\"u1@example.com\",\"plan\":\"pro\"}"),
                "{\"type\":\"group\",\"anonymousId\":\"A\",\"groupId\":\"G1\",\(t)}",
            ])
        let login = try eventObject(enrich(e, identify("A", "U2", traits: "{\"plan\":\"free\"}"), sequence: 3))
        let after = enrich(e, track("A"), sequence: 4)
        let text = try #require(after.eventText)
        #expect(login["userId"] == .string("U2"))
        #expect(login["groupId"] == nil)
        #expect(try eventObject(after)["userId"] == .string("U2"))
        #expect(!text.contains("U1") && !text.contains("G1") && !text.contains("u1@example.com") && !text.contains("traits"), "\(text)")
    }

    @Test func modifyKeepsTheUserAndGroup() throws {
        let e = Enricher(config: try testConfig(), identity: try IdentityStore(stateDirectory: nil))
        let got = try ids(
            e,
            [
                identify("A", "U1", traits: "{\"email\":\"old@example.com\"}"),
                "{\"type\":\"group\",\"anonymousId\":\"A\",\"groupId\":\"G1\",\(t)}",
                identify("A", "U1", traits: "{\"email\":\"new@example.com\"}"),
                track("A"),
            ])
        #expect(got[2].user == "U1" && got[2].group == "G1")
        #expect(got[3].user == "U1" && got[3].group == "G1")
    }

    @Test func aliasMovesCarryForwardAndGroupToTheNewUserId() throws {
        let e = Enricher(config: try testConfig(), identity: try IdentityStore(stateDirectory: nil))
        let got = try ids(
            e,
            [
                identify("A", "P"),
                "{\"type\":\"group\",\"anonymousId\":\"A\",\"groupId\":\"G\",\(t)}",
                "{\"type\":\"alias\",\"anonymousId\":\"A\",\"previousId\":\"P\",\"userId\":\"U\",\(t)}",
                track("A"),
                "{\"type\":\"track\",\"event\":\"E\",\"userId\":\"U\",\(t)}",
                // previousId as an anonymousId (an alias line without anonymousId).
                "{\"type\":\"alias\",\"previousId\":\"anon-9\",\"userId\":\"V\",\(t)}",
                track("anon-9"),
            ])
        #expect(got[2].user == "U" && got[2].group == "G", "the alias event is the new user's, in the moved group")
        #expect(got[3].user == "U" && got[3].group == "G")
        #expect(got[4].group == "G")
        #expect(got[6].user == "V")
        #expect(try e.identity.groupId(forUserId: "U") == "G")
    }

    @Test func aliasKeepsTheNewUsersOwnGroup() throws {
        let e = Enricher(config: try testConfig(), identity: try IdentityStore(stateDirectory: nil))
        let got = try ids(
            e,
            [
                "{\"type\":\"group\",\"userId\":\"P\",\"groupId\":\"GP\",\(t)}",
                "{\"type\":\"group\",\"userId\":\"W\",\"groupId\":\"GW\",\(t)}",
                "{\"type\":\"alias\",\"anonymousId\":\"A\",\"previousId\":\"P\",\"userId\":\"W\",\(t)}",
                track("A"),
            ])
        #expect(got[2].group == "GW" && got[3].user == "W" && got[3].group == "GW")
    }

    /// Each transition's rows carry its line's sequence: a commit before that line stores none
    /// of them, a commit through it stores all (a crash in between leaves the old state whole).
    @Test func aTransitionIsCommittedWholeOrNotAtAll() throws {
        let config = try testConfig(logout, stateDir: dir)
        do {
            let store = try IdentityStore(stateDirectory: dir)
            let e = Enricher(config: config, identity: store)
            _ = try ids(
                e,
                [
                    identify("A", "P"),
                    "{\"type\":\"group\",\"anonymousId\":\"A\",\"groupId\":\"G\",\(t)}",
                    identify("B", "X"),
                ])
            try store.commit(throughSequence: 3)
            _ = try ids(
                e,
                [
                    "{\"type\":\"alias\",\"anonymousId\":\"A\",\"previousId\":\"P\",\"userId\":\"U\",\(t)}",  // 4
                    track("B", "Signed Out"),  // 5
                ], firstSequence: 4)
            try store.commit(throughSequence: 3)
            store.close()  // "crash" before the alias line was checkpointed
        }
        do {
            let store = try IdentityStore(stateDirectory: dir)
            #expect(try store.userId(forAnonymousId: "A") == "P")
            #expect(try store.groupId(forUserId: "U") == nil)
            #expect(try store.userId(forAnonymousId: "B") == "X")
            // The resumed run re-reads lines 4 and 5 and commits them.
            let e = Enricher(config: config, identity: store)
            _ = try ids(
                e,
                [
                    "{\"type\":\"alias\",\"anonymousId\":\"A\",\"previousId\":\"P\",\"userId\":\"U\",\(t)}",
                    track("B", "Signed Out"),
                ], firstSequence: 4)
            try store.commit(throughSequence: 4)
            store.close()  // crash after the alias, before the logout
        }
        let store = try IdentityStore(stateDirectory: dir)
        #expect(try store.userId(forAnonymousId: "A") == "U")
        #expect(try store.userId(forAnonymousId: "P") == "U")
        #expect(try store.groupId(forUserId: "U") == "G")
        #expect(try store.userId(forAnonymousId: "B") == "X")
        let e = Enricher(config: config, identity: store)
        _ = try ids(e, [track("B", "Signed Out")], firstSequence: 5)
        try store.commit(throughSequence: 5)
        store.close()
        let reopened = try IdentityStore(stateDirectory: dir)
        #expect(try reopened.userId(forAnonymousId: "B") == nil, "the logout is stored")
        #expect(try reopened.userId(forAnonymousId: "A") == "U")
    }

    /// A logout whose row is later replaced by a login in the same commit stores the login; a
    /// login followed by a logout stores no row (the last change of each key wins).
    @Test func theLastChangeOfAnAnonymousIdWinsInOneCommit() throws {
        let config = try testConfig(logout, stateDir: dir)
        do {
            let store = try IdentityStore(stateDirectory: dir)
            let e = Enricher(config: config, identity: store)
            _ = try ids(
                e,
                [
                    identify("A", "U1"), track("A", "Signed Out"), identify("A", "U2"),
                    identify("B", "U3"), track("B", "Signed Out"),
                ])
            try store.commitAll()
            store.close()
        }
        let store = try IdentityStore(stateDirectory: dir)
        #expect(try store.userId(forAnonymousId: "A") == "U2")
        #expect(try store.userId(forAnonymousId: "B") == nil)
    }

    @Test func logoutEventsConfig() throws {
        let c = try testConfig("enrichment: { identity: { logout_events: [\"Signed Out\", \"Signed Out\", \"Abgemeldet\"] } }")
        #expect(c.enrichment.identity.logoutEvents == ["Signed Out", "Abgemeldet"])
        #expect(try testConfig().enrichment.identity.logoutEvents.isEmpty)
        let typo = try #require(throws: ConfigError.self) {
            try ConfigLoader.load(text: "enrichment:\n  identity:\n    logout_event: [\"Signed Out\"]\n", file: "r.yaml", environment: [:])
        }
        #expect(typo.description == "r.yaml:3:5: unknown key 'enrichment.identity.logout_event'; did you mean 'enrichment.identity.logout_events'?")
        let notList = try #require(throws: ConfigError.self) {
            try ConfigLoader.load(text: "enrichment: { identity: { logout_events: Signed Out } }", file: "r.yaml", environment: [:])
        }
        #expect(notList.description.contains("'enrichment.identity.logout_events' must be a list"), "\(notList.description)")
        let empty = try #require(throws: ConfigError.self) {
            try ConfigLoader.load(text: "enrichment: { identity: { logout_events: [\"\"] } }", file: "r.yaml", environment: [:])
        }
        #expect(empty.description.contains("must not contain an empty event name"), "\(empty.description)")
    }
}

extension LineOutcome where Event == EnrichedEvent {
    /// The event's text, for an event.
    var eventText: String? {
        guard case .event(let event) = self else { return nil }
        return String(decoding: event.bytes, as: UTF8.self)
    }
}

/// The worked timeline of docs/enrichment.md ("Identity transitions"), line by line.
@Test func theDocumentedTimeline() throws {
    let t = "\"timestamp\":\"2024-01-01T00:00:00Z\""
    let config = try testConfig("enrichment: { identity: { logout_events: [\"Signed Out\"] } }")
    let e = Enricher(config: config, identity: try IdentityStore(stateDirectory: nil))
    let lines = [
        "{\"type\":\"identify\",\"anonymousId\":\"A\",\"userId\":\"U1\",\"traits\":{\"plan\":\"pro\"},\(t)}",
        "{\"type\":\"group\",\"anonymousId\":\"A\",\"groupId\":\"G1\",\(t)}",
        "{\"type\":\"track\",\"anonymousId\":\"A\",\"event\":\"Viewed\",\(t)}",
        "{\"type\":\"identify\",\"anonymousId\":\"A\",\"userId\":\"U1\",\"traits\":{\"plan\":\"enterprise\"},\(t)}",
        "{\"type\":\"track\",\"anonymousId\":\"A\",\"event\":\"Signed Out\",\(t)}",
        "{\"type\":\"track\",\"anonymousId\":\"A\",\"event\":\"Viewed\",\(t)}",
        "{\"type\":\"identify\",\"anonymousId\":\"A\",\"userId\":\"U2\",\(t)}",
        "{\"type\":\"group\",\"anonymousId\":\"A\",\"groupId\":\"G2\",\(t)}",
        "{\"type\":\"alias\",\"anonymousId\":\"A\",\"previousId\":\"U2\",\"userId\":\"U3\",\(t)}",
        "{\"type\":\"track\",\"anonymousId\":\"A\",\"event\":\"Viewed\",\(t)}",
        "{\"type\":\"alias\",\"previousId\":\"anon-9\",\"userId\":\"U4\",\(t)}",
        "{\"type\":\"page\",\"anonymousId\":\"anon-9\",\(t)}",
        "{\"type\":\"identify\",\"anonymousId\":\"A\",\"userId\":\"U1\",\(t)}",
    ]
    // "sent with" and "stored after it" of each row: userId, groupId, then A's and anon-9's userIds.
    let table: [(String?, String?, String?, String?)] = [
        ("U1", nil, "U1", nil), ("U1", "G1", "U1", nil), ("U1", "G1", "U1", nil), ("U1", "G1", "U1", nil),
        ("U1", "G1", nil, nil), (nil, nil, nil, nil), ("U2", nil, "U2", nil), ("U2", "G2", "U2", nil),
        ("U3", "G2", "U3", nil), ("U3", "G2", "U3", nil), ("U4", nil, "U3", "U4"), ("U4", nil, "U3", "U4"),
        ("U1", "G1", "U1", "U4"),
    ]
    for (i, line) in lines.enumerated() {
        let o = try eventObject(enrich(e, line, lineNumber: i + 1, sequence: UInt64(i + 1)))
        let row = table[i]
        #expect(o["userId"]?.stringValue == row.0 && o["groupId"]?.stringValue == row.1, "line \(i + 1)")
        #expect(try e.identity.userId(forAnonymousId: "A") == row.2 && e.identity.userId(forAnonymousId: "anon-9") == row.3, "line \(i + 1)")
    }
    #expect(try e.identity.userId(forAnonymousId: "U2") == "U3")
    #expect(try e.identity.groupId(forUserId: "U3") == "G2")
    #expect(try e.identity.groupId(forUserId: "U1") == "G1")
}
