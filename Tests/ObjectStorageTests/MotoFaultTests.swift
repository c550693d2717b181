import Foundation
import ObjectStorage
import TestSupport
import Testing

extension MotoTests {
    /// A proxy between the reader and moto cuts or stalls the first connection mid-object: the
    /// reader must reopen with `Range: bytes=N-` at the last byte handed on and `If-Match`, and
    /// deliver the object byte for byte.
    @Suite struct Faults {
        static let key = "gz/events.ndjson.gz"

        @Test(arguments: [FaultProxy.Fault.cut, .stall])
        func resumesAtTheLastByteHandedOn(_ fault: FaultProxy.Fault) async throws {
            let moto = try MotoFixture.shared
            let proxy = try await FaultProxy.start(upstreamPort: moto.open.port, fault: fault, afterBytes: 100_000)
            defer { Task { try? await proxy.stop() } }
            let recording = RecordingTiming()
            let client = try moto.client(
                settings: {
                    $0.endpoint = "http://127.0.0.1:\(proxy.port)"
                    // Only a stall needs the idle limit, and it must not be reached by accident:
                    // under a loaded suite moto can pause for over a second between two reads,
                    // which would count as a second fault.
                    $0.idleTimeout = fault == .stall ? .seconds(8) : .seconds(60)
                }, timing: recording.timing)
            let expected = moto.open.object(Self.key)
            let result = await readOnThread(chunk: 8192) { client.reader(bucket: "replay-objects", key: Self.key, etag: nil) }
            #expect(result.error == nil)
            #expect(result.count == expected.size)
            #expect(result.sha256 == expected.sha256)
            #expect(recording.recorded == [.milliseconds(375)])
            let connections = proxy.connections
            try #require(connections.count == 2 && result.reopenOffsets.count == 1)
            // The reader resumes at the last byte it handed on. After a cut that can be before the
            // last byte the proxy forwarded: bytes still in flight when the connection failed (in
            // the kernel's buffers, held back by backpressure) are lost with it.
            let resumedAt = result.reopenOffsets[0]
            #expect(resumedAt > 0 && resumedAt <= UInt64(connections[0].bodyBytesForwarded))
            if fault == .stall { #expect(resumedAt == UInt64(connections[0].bodyBytesForwarded)) }
            let second = connections[1].sent.lowercased()
            #expect(second.contains("range: bytes=\(resumedAt)-\r\n"))
            #expect(second.contains("if-match: \(try #require(result.etag))\r\n".lowercased()))
            #expect(!connections[0].sent.lowercased().contains("range:"))
        }

        /// A stop request from another thread wakes a reader blocked on a stalled connection.
        @Test func cancelWakesABlockedRead() async throws {
            let moto = try MotoFixture.shared
            // Every connection stalls: whichever one the GET goes out on (a loaded pool may open
            // a second), and any reopen, the read can only end by the stop.
            let proxy = try await FaultProxy.start(upstreamPort: moto.open.port, fault: .stall, afterBytes: 50_000, target: .everyConnection)
            defer { Task { try? await proxy.stop() } }
            let client = try moto.client(settings: {
                $0.endpoint = "http://127.0.0.1:\(proxy.port)"
                $0.idleTimeout = .seconds(60)
            })
            let cancellation = ReadCancellation()
            let started = ContinuousClock.now
            Task {
                await proxy.waitForFault()  // the answer stalls here: the reader is (about to be) blocked
                cancellation.cancel()
            }
            let outcome: String = await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    let reader = client.reader(bucket: "replay-objects", key: Self.key, etag: nil, cancellation: cancellation)
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    do {
                        // `buffer` has 4096 elements: its base address is valid for 4096 bytes.
                        while try buffer.withUnsafeMutableBufferPointer({ try reader.read(into: $0.baseAddress!, count: 4096) }) > 0 {}
                        continuation.resume(returning: "ended")
                    } catch is CancellationError {
                        continuation.resume(returning: "cancelled")
                    } catch {
                        continuation.resume(returning: "\(error)")
                    }
                }
            }
            #expect(outcome == "cancelled")
            #expect(ContinuousClock.now - started < .seconds(10))
        }

        /// The object is overwritten between the cut and the reopen: If-Match makes the reopen
        /// fail with 412, never mix two versions.
        @Test func objectChangedWhileReopening() async throws {
            let moto = try MotoFixture.shared
            let direct = try moto.client()
            let key = "changing/during-read.ndjson"
            let etag = try await putObject(direct, bucket: "replay-objects", key: key, body: Array(repeating: 67, count: 300_000))
            let proxy = try await FaultProxy.start(upstreamPort: moto.open.port, fault: .cut, afterBytes: 100_000)
            defer { Task { try? await proxy.stop() } }
            let recording = RecordingTiming {
                blockingWait { _ = try await putObject(direct, bucket: "replay-objects", key: key, body: Array(repeating: 68, count: 300_000)) }
            }
            let client = try moto.client(settings: { $0.endpoint = "http://127.0.0.1:\(proxy.port)" }, timing: recording.timing)
            let result = await readOnThread(keep: true) { client.reader(bucket: "replay-objects", key: key, etag: etag) }
            let error = try #require(result.error)
            #expect(error.kind == .objectChanged)
            #expect(result.bytes.allSatisfy { $0 == 67 })
            #expect(result.reopenOffsets == [UInt64(result.count)])
            #expect(result.count > 0 && result.count <= proxy.connections[0].bodyBytesForwarded)
            #expect(proxy.connections.count == 2)
            #expect(proxy.connections[1].sent.contains("If-Match: \(etag)"))
        }
    }
}
