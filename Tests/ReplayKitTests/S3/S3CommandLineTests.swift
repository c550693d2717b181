import Foundation
import JSONCore
import ReplayKit
import ServerTesting
import TestSupport
import Testing

extension S3Tests {
    /// `s3://` inputs through the real `mr-replay` binary: kill -9, changed objects, refusals,
    /// missing buckets and keys, a stop that wakes a stalled read, validate and dry runs.
    @Suite(.serialized, .enabled(if: hasBuiltBinary("mr-replay"), "needs the mr-replay binary next to the test bundle"))
    final class CommandLineTests {
        let dir: String
        init() throws { dir = try makeTempDir() }
        deinit { try? FileManager.default.removeItem(atPath: dir) }

        /// Kills `process` with SIGKILL as soon as the checkpoint shows `url` read part way
        /// (`watch` follows `stateDir`), unless it ends first; true when the kill landed.
        func killAtPartialCheckpoint(_ url: String, stateDir: String, _ process: LaunchedReplay, watch: FileWatch) async -> Bool {
            _ = await watch.wait(
                whileRunning: process.process.processIdentifier,
                until: {
                    guard let cp = readCheckpointMirror(stateDir)?.inputs[url] else { return false }
                    return cp.offset > 0 && !cp.completed
                }, then: { process.send(SIGKILL) })
            await process.waitForExit()
            return process.process.terminationReason == .uncaughtSignal && process.status == SIGKILL
        }

        @Test func killNineMidObjectResumesAtTheCheckpointForGzipAndPlainObjects() async throws {
            let moto = try S3Moto.shared
            let gz = try writeEventsFile(dir, "a.gz", s3Events("ka", count: 6000), gzip: true)
            let plain = try writeEventsFile(dir, "b.ndjson", s3Events("kb", count: 6000))
            try await moto.put(bucket: "kill-bucket", ["in/a-events.ndjson.gz": gz, "in/b-events.ndjson": plain])
            try await RunTarget.run(dir: dir) { target in
                let config = try writeS3RunConfig(
                    dir: "\(dir)/run", url: target.url, moto: moto, extra: "rate_limit: { events_per_second: 3000 }")
                let args = ["run", "--config", config, "--quiet", "s3://kill-bucket/in/"]
                let env = moto.environment(home: dir)
                var kills = 0
                // First killed inside the gzip object, then inside the plain one, each right after a
                // checkpoint showed it read part way.
                let watch = try FileWatch("\(dir)/run")  // and the state directory the run creates in it
                for url in ["s3://kill-bucket/in/a-events.ndjson.gz", "s3://kill-bucket/in/b-events.ndjson"] {
                    let p = try launchReplay(args, in: dir, env: env)
                    if await killAtPartialCheckpoint(url, stateDir: "\(dir)/run/state", p, watch: watch) { kills += 1 }
                }
                #expect(kills == 2, "both kills must land mid-object")
                let final = try await runReplay(args, in: dir, env: env)
                #expect(final.code == 0, "\(final.err)")
                let report = try #require(try JSONValue(parsing: String(contentsOfFile: "\(dir)/run/state/report.json", encoding: .utf8)).objectValue)
                #expect((Int(report["events"]?.objectValue?["resumed_past"]?.encodedString ?? "0") ?? 0) > 0)
                expectExactlyOnce(
                    try await target.received(), s3EventIds("ka", count: 6000).union(s3EventIds("kb", count: 6000)),
                    duplicatesUpTo: 2 * 3000)
                let status = try await runReplay(["status", "--state-dir", "\(dir)/run/state"], in: dir, env: env)
                #expect(status.out.contains("s3://kill-bucket/in/b-events.ndjson: completed"), "\(status.out)")
            }
        }

        @Test func aChangedETagRestartsTheObjectWithAWarningOrIsRefusedWithExit2() async throws {
            let moto = try S3Moto.shared
            let url = "s3://change-bucket/c/events.ndjson"
            try await moto.put(bucket: "change-bucket", ["c/events.ndjson": try writeEventsFile(dir, "v1", s3Events("v1", count: 2000))])
            try await RunTarget.run(dir: dir) { target in
                let env = moto.environment(home: dir)
                let restart = try writeS3RunConfig(dir: "\(dir)/restart", url: target.url, moto: moto)
                let refuse = try writeS3RunConfig(dir: "\(dir)/refuse", url: target.url, moto: moto, inputsExtra: "  on_changed: refuse")
                for config in [restart, refuse] {
                    let first = try await runReplay(["run", "--config", config, "--quiet", "--limit", "500", url], in: dir, env: env)
                    #expect(first.code == 0, "\(first.err)")
                }
                try await moto.put(bucket: "change-bucket", ["c/events.ndjson": try writeEventsFile(dir, "v2", s3Events("v2", count: 2000))])
                let restarted = try await runReplay(["run", "--config", restart, "--quiet", url], in: dir, env: env)
                #expect(restarted.code == 0, "\(restarted.err)")
                #expect(restarted.err.contains("\(url): changed under its checkpoint") && restarted.err.contains("ETag"), "\(restarted.err)")
                let refused = try await runReplay(["run", "--config", refuse, "--quiet", url], in: dir, env: env)
                #expect(refused.code == 2)
                #expect(refused.err.contains("\(url) changed under its checkpoint") && refused.err.contains("ETag"), "\(refused.err)")
                let got = try await target.received()
                #expect(s3EventIds("v2", count: 2000).isSubset(of: Set(got.events.keys)), "the new version is read from its start")
            }
        }

        @Test func aForbiddenBucketOrBadCredentialsExit3NamingTheBucketAndTheCredentialSource() async throws {
            let moto = try S3Moto.shared
            let config = try writeS3RunConfig(dir: "\(dir)/iam", url: "embedded", moto: moto, endpoint: moto.iamEndpoint)
            let env = moto.environment(home: dir, keyID: moto.iamKeyID, secret: moto.iamSecret)
            let denied = try await runReplay(["run", "--config", config, "--quiet", "s3://forbidden-bucket/events"], in: dir, env: env)
            #expect(denied.code == 3, "\(denied.err)")
            #expect(denied.err.contains("forbidden-bucket") && denied.err.contains("AWS_ACCESS_KEY_ID"), "\(denied.err)")
            #expect(denied.err.contains(String(moto.iamKeyID.suffix(4))) && !denied.err.contains(moto.iamSecret))
            let badKeys = moto.environment(home: dir, keyID: moto.iamKeyID, secret: "not-the-secret-at-all")
            let refused = try await runReplay(["validate", "--config", config, "s3://replay-iam/events"], in: dir, env: badKeys)
            #expect(refused.code == 3, "\(refused.err)")
            #expect(refused.err.contains("replay-iam") && !refused.err.contains("not-the-secret-at-all"), "\(refused.err)")
        }

        @Test func aMissingBucketOrKeyExits2AndAnEmptyPrefixWarns() async throws {
            let moto = try S3Moto.shared
            try await moto.put(bucket: "present-bucket", ["there/one.ndjson": try writeEventsFile(dir, "one", s3Events("one", count: 3))])
            let config = try writeS3RunConfig(dir: "\(dir)/run", url: "embedded", moto: moto)
            let env = moto.environment(home: dir)
            let noBucket = try await runReplay(["run", "--config", config, "--quiet", "s3://absent-bucket/x/"], in: dir, env: env)
            #expect(noBucket.code == 2 && noBucket.err.contains("absent-bucket"), "\(noBucket.err)")
            let noKey = try await runReplay(["run", "--config", config, "--quiet", "s3://present-bucket/there/two.ndjson"], in: dir, env: env)
            #expect(noKey.code == 2 && noKey.err.contains("s3://present-bucket/there/two.ndjson"), "\(noKey.err)")
            let empty = try await runReplay(
                ["run", "--config", config, "--quiet", "s3://present-bucket/nothing/", "s3://present-bucket/there/one.ndjson"], in: dir, env: env)
            #expect(empty.code == 0, "\(empty.err)")
            #expect(empty.err.contains("s3://present-bucket/nothing/: the prefix holds no objects"), "\(empty.err)")
        }

        @Test(.timeLimit(.minutes(3))) func aStopSignalWakesAReadStalledOnTheNetwork() async throws {
            let moto = try S3Moto.shared
            try await moto.put(bucket: "stall-bucket", ["s/events.ndjson": try writeEventsFile(dir, "stall", s3Events("st", count: 5000))])
            let proxy = try await FaultProxy.start(
                upstreamPort: moto.port, fault: .stall, afterBytes: 200_000,
                target: .wholeObject(requestLine: "GET /stall-bucket/s/events.ndjson ", refuseReopens: false))
            try await RunTarget.run(dir: dir) { target in
                // An idle timeout far longer than the test waits: only the stop can end the read.
                let config = try writeS3RunConfig(
                    dir: "\(dir)/run", url: target.url, moto: moto, endpoint: proxy.endpoint, extra: "")
                try writeFile(
                    config,
                    try String(contentsOfFile: config, encoding: .utf8).replacingOccurrences(
                        of: "idle_timeout_seconds: 5", with: "idle_timeout_seconds: 600"))
                let env = moto.environment(home: dir)
                let p = try launchReplay(["run", "--config", config, "--quiet", "s3://stall-bucket/s/events.ndjson"], in: dir, env: env)
                // The read stalls: the proxy holds back everything after 200,000 bytes. A run that
                // ends before that (a failure) ends the wait too, and the checks below report it.
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await proxy.waitForFault() }
                    group.addTask { await p.ended.wait() }
                    await group.next()
                    group.cancelAll()
                }
                #expect(proxy.faulted && p.isRunning, "\((try? String(contentsOfFile: p.stderrPath, encoding: .utf8)) ?? "")")
                p.send(SIGTERM)
                let signalled = ContinuousClock.now
                await p.waitForExit()
                #expect(ContinuousClock.now - signalled < .seconds(20), "the stalled read woke on the stop")
                #expect(p.status == 75, "\((try? String(contentsOfFile: p.stderrPath, encoding: .utf8)) ?? "")")
                let report = try #require(try JSONValue(parsing: String(contentsOfFile: "\(dir)/run/state/report.json", encoding: .utf8)).objectValue)
                #expect(report["status"] == "interrupted")
                try await proxy.stop()
                let direct = try writeS3RunConfig(dir: "\(dir)/run", url: target.url, moto: moto)
                let finished = try await runReplay(["run", "--config", direct, "--quiet", "s3://stall-bucket/s/events.ndjson"], in: dir, env: env)
                #expect(finished.code == 0, "\(finished.err)")
                // What was in flight when the stop came may arrive twice (its answer came too late).
                expectExactlyOnce(try await target.received(), s3EventIds("st", count: 5000), duplicatesUpTo: 2000)
            }
        }

        @Test func validateAndADryRunReadS3Objects() async throws {
            let moto = try S3Moto.shared
            let good = try writeEventsFile(dir, "good", s3Events("good", count: 100))
            var lines = s3Events("bad", count: 9).split(separator: "\n").map(String.init)
            lines[3] = #"{"type":"track","event":"E","anonymousId":"a","messageId":"bad-3","#
            let bad = try writeEventsFile(dir, "bad.gz", lines.joined(separator: "\n") + "\n", gzip: true)
            try await moto.put(bucket: "validate-bucket", ["v/good.ndjson": good, "v/bad.ndjson.gz": bad])
            let config = try writeS3RunConfig(dir: "\(dir)/run", url: "embedded", moto: moto)
            let env = moto.environment(home: dir)
            let validated = try await runReplay(["validate", "--config", config, "s3://validate-bucket/v/"], in: dir, env: env)
            #expect(validated.code == 1, "\(validated.err)")
            #expect(validated.out.contains("s3://validate-bucket/v/bad.ndjson.gz:4:"), "\(validated.out)")
            #expect(validated.out.contains("108 valid, 1 invalid"), "\(validated.out)")
            let dry = try await runReplay(
                ["run", "--config", config, "--dry-run", "--output", "\(dir)/out.ndjson", "s3://validate-bucket/v/good.ndjson"],
                in: dir, env: env)
            #expect(dry.code == 0, "\(dry.err)")
            let out = try String(contentsOfFile: "\(dir)/out.ndjson", encoding: .utf8)
            #expect(out.split(separator: "\n").count == 100)
        }
    }
}
