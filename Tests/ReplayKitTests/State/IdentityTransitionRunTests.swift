import Collector
import Foundation
import JSONCore
import ReplayKit
import ServerTesting
import TestSupport
import Testing

/// IDSync-style transitions through replayed logs, asserting on what the collector receives:
/// login, logout, login as someone else, modify and alias, across a resume, and a backfill.
@Suite(.serialized, .heavy) final class IdentityTransitionRunTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    let logoutConfig = "enrichment: { identity: { logout_events: [\"Signed Out\"] } }"

    /// One line with messageId `id` (`n` sets the second of its timestamp).
    static func line(_ id: String, _ body: String, _ n: Int = 0) -> String {
        let ts = "2024-05-01T10:00:\(String(format: "%02d", n % 60)).000Z"
        return "{\"messageId\":\"\(id)\",\(body),\"timestamp\":\"\(ts)\"}"
    }

    /// `userId` and `groupId` of each received event by messageId.
    func ids(_ events: [String: JSONObject]) -> [String: (user: String?, group: String?)] {
        events.mapValues { ($0["userId"]?.stringValue, $0["groupId"]?.stringValue) }
    }

    @Test func loginLogoutLoginAsSomeoneElseAndModify() async throws {
        let lines = [
            Self.line("m1", #""type":"identify","anonymousId":"A","userId":"U1","traits":{"email":"u1@example.com","plan":"pro"}"#),
            Self.line("m2", #""type":"group","anonymousId":"A","groupId":"G1""#),
            Self.line("m3", #""type":"identify","anonymousId":"B","userId":"U3""#),
            Self.line("m4", #""type":"track","anonymousId":"A","event":"Viewed""#),
            Self.line("m5", #""type":"identify","anonymousId":"A","userId":"U1","traits":{"plan":"enterprise"}"#),  // modify
            Self.line("m6", #""type":"track","anonymousId":"A","event":"Viewed""#),
            Self.line("m7", #""type":"track","anonymousId":"A","event":"Signed Out""#),  // logout
            Self.line("m8", #""type":"track","anonymousId":"A","event":"Viewed""#),
            Self.line("m9", #""type":"page","anonymousId":"A","name":"Home""#),
            Self.line("m10", #""type":"track","anonymousId":"B","event":"Viewed""#),
            Self.line("m11", #""type":"identify","anonymousId":"A","userId":"U2","traits":{"plan":"free"}"#),  // login
            Self.line("m12", #""type":"track","anonymousId":"A","event":"Viewed""#),
            Self.line("m13", #""type":"track","anonymousId":"A","event":"Signed Out""#),
            Self.line("m14", #""type":"identify","anonymousId":"A","userId":"U1""#),  // login as U1 again
            Self.line("m15", #""type":"screen","anonymousId":"A","name":"Cart""#),
        ]
        try await RunTarget.run(dir: dir) { target in
            try writeFile("\(dir)/in.ndjson", lines.joined(separator: "\n") + "\n")
            let config = try writeRunConfig(dir: dir, url: target.url, extra: logoutConfig)
            let report = try await replay(config: config, inputs: ["\(dir)/in.ndjson"])
            let got = try await target.received()
            #expect(report.events.delivered == lines.count, "\(report.summary)")
            let id = ids(got.events)
            #expect(id.count == lines.count)
            for m in ["m4", "m5", "m6", "m7"] { #expect(id[m]?.user == "U1" && id[m]?.group == "G1", "\(m)") }
            for m in ["m8", "m9"] { #expect(id[m]?.user == nil && id[m]?.group == nil, "\(m) is after the logout") }
            #expect(id["m10"]?.user == "U3", "another anonymousId stays logged in")
            for m in ["m11", "m12", "m13"] { #expect(id[m]?.user == "U2" && id[m]?.group == nil, "\(m)") }
            #expect(id["m14"]?.user == "U1" && id["m14"]?.group == "G1")
            #expect(id["m15"]?.user == "U1" && id["m15"]?.group == "G1")
            // Nothing of U1 (id, group, traits) reaches an event after U1's logout until U1 logs in again.
            for m in ["m8", "m9", "m11", "m12", "m13"] {
                let text = JSONValue.object(try #require(got.events[m])).encodedString
                #expect(!text.contains("U1") && !text.contains("G1") && !text.contains("u1@example.com"), "\(m): \(text)")
            }
            #expect(got.events["m12"]?["traits"] == nil, "traits are never carried")
        }
    }

    @Test func aliasMovesCarryForwardIncludingTheGroup() async throws {
        let lines = [
            Self.line("a1", #""type":"identify","anonymousId":"A","userId":"P""#),
            Self.line("a2", #""type":"group","anonymousId":"A","groupId":"G""#),
            Self.line("a3", #""type":"alias","anonymousId":"A","previousId":"P","userId":"U""#),
            Self.line("a4", #""type":"track","anonymousId":"A","event":"Viewed""#),
            Self.line("a5", #""type":"track","userId":"U","event":"Paid""#),
            Self.line("a6", #""type":"alias","previousId":"anon-9","userId":"V""#),
            Self.line("a7", #""type":"page","anonymousId":"anon-9","name":"Home""#),
        ]
        try await RunTarget.run(dir: dir) { target in
            try writeFile("\(dir)/in.ndjson", lines.joined(separator: "\n") + "\n")
            let config = try writeRunConfig(dir: dir, url: target.url)
            _ = try await replay(config: config, inputs: ["\(dir)/in.ndjson"])
            let id = ids(try await target.received().events)
            #expect(id["a3"]?.user == "U" && id["a3"]?.group == "G")
            #expect(id["a4"]?.user == "U" && id["a4"]?.group == "G")
            #expect(id["a5"]?.user == "U" && id["a5"]?.group == "G")
            #expect(id["a7"]?.user == "V" && id["a7"]?.group == nil)
        }
    }

    /// A log split in two: the second run (over the grown file) continues from the identities
    /// the first one stored, including its logout, login and alias.
    @Test func transitionsSurviveAResume() async throws {
        let first = [
            Self.line("r1", #""type":"identify","anonymousId":"A","userId":"U1""#),
            Self.line("r2", #""type":"group","anonymousId":"A","groupId":"G1""#),
            Self.line("r3", #""type":"identify","anonymousId":"B","userId":"U2""#),
            Self.line("r4", #""type":"track","anonymousId":"A","event":"Signed Out""#),
            Self.line("r5", #""type":"identify","anonymousId":"B","userId":"U4""#),
            Self.line("r6", #""type":"alias","previousId":"C","userId":"U3""#),
            Self.line("r7", #""type":"group","userId":"U1","groupId":"G2""#),
            Self.line("r8", #""type":"alias","anonymousId":"D","previousId":"U1","userId":"U5""#),
        ]
        let second = [
            Self.line("s1", #""type":"track","anonymousId":"A","event":"Viewed""#),
            Self.line("s2", #""type":"track","anonymousId":"B","event":"Viewed""#),
            Self.line("s3", #""type":"track","anonymousId":"C","event":"Viewed""#),
            Self.line("s4", #""type":"track","anonymousId":"D","event":"Viewed""#),
            Self.line("s5", #""type":"identify","anonymousId":"A","userId":"U6""#),
            Self.line("s6", #""type":"track","anonymousId":"A","event":"Viewed""#),
        ]
        let input = "\(dir)/in.ndjson"
        try await RunTarget.run(dir: dir, name: "first") { target1 in
            try writeFile(input, first.joined(separator: "\n") + "\n")
            let config1 = try writeRunConfig(dir: dir, url: target1.url, extra: logoutConfig)
            let r1 = try await replay(config: config1, inputs: [input])
            #expect(try await target1.received().events.count == first.count)
            #expect(r1.events.delivered == first.count)

            try await RunTarget.run(dir: dir, name: "second") { target2 in
                let handle = try #require(FileHandle(forWritingAtPath: input))
                try handle.seekToEnd()
                try handle.write(contentsOf: Data((second.joined(separator: "\n") + "\n").utf8))
                try handle.close()
                let config2 = try writeRunConfig(dir: dir, url: target2.url, extra: logoutConfig)
                let r2 = try await replay(config: config2, inputs: [input])
                let got = try await target2.received()
                #expect(r2.events.delivered == second.count, "only the new lines are read")
                #expect(Set(got.events.keys) == Set((1...second.count).map { "s\($0)" }))
                let id = ids(got.events)
                #expect(id["s1"]?.user == nil && id["s1"]?.group == nil, "logged out in the first run")
                #expect(id["s2"]?.user == "U4", "logged in as someone else in the first run")
                #expect(id["s3"]?.user == "U3", "aliased in the first run")
                #expect(id["s4"]?.user == "U5" && id["s4"]?.group == "G2", "alias moved U1's group to U5")
                #expect(id["s6"]?.user == "U6" && id["s6"]?.group == nil)
            }
        }
    }

    /// A backfill in which most lines have only an anonymousId: a few identifies, logouts and
    /// logins per device. Every event must carry exactly the user a replay of the rules in order
    /// (the model below) gives, and no event after a logout carries the previous user.
    @Test func backfillWithMostLinesLackingAUserId() async throws {
        var lines: [String] = []
        var expected: [String: String?] = [:]
        var current: [String: String] = [:]
        var rng = SeededRandom(seed: 18)
        for i in 0..<3000 {
            let anon = "dev-\(rng.next() % 40)"
            let id = "b\(i)"
            let roll = rng.next() % 100
            if roll < 3 {
                let user = "user-\(rng.next() % 25)"
                lines.append(Self.line(id, "\"type\":\"identify\",\"anonymousId\":\"\(anon)\",\"userId\":\"\(user)\"", i))
                current[anon] = user
                expected.updateValue(user, forKey: id)
            } else if roll < 6 {
                lines.append(Self.line(id, "\"type\":\"track\",\"anonymousId\":\"\(anon)\",\"event\":\"Signed Out\"", i))
                expected.updateValue(current[anon], forKey: id)
                current[anon] = nil
            } else {
                lines.append(Self.line(id, "\"type\":\"track\",\"anonymousId\":\"\(anon)\",\"event\":\"Viewed \(i % 7)\"", i))
                expected.updateValue(current[anon], forKey: id)
            }
        }
        try await RunTarget.run(dir: dir) { target in
            try writeFile("\(dir)/in.ndjson", lines.joined(separator: "\n") + "\n")
            let config = try writeRunConfig(dir: dir, url: target.url, extra: logoutConfig)
            let report = try await replay(config: config, inputs: ["\(dir)/in.ndjson"])
            let got = try await target.received()
            #expect(report.events.delivered == lines.count)
            var mismatches: [String] = []
            for (id, want) in expected where got.events[id]?["userId"]?.stringValue != want {
                mismatches.append("\(id): want \(want ?? "none"), got \(got.events[id]?["userId"]?.stringValue ?? "none")")
            }
            #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
            let withoutUser = expected.values.filter { $0 == nil }.count
            #expect(
                withoutUser > 100 && withoutUser < lines.count - 100, "the log has logged-in and logged-out stretches (\(withoutUser) without a user)"
            )
        }
    }
}
