import Foundation
import ObjectStorage
import Testing

extension MotoTests {
    /// The blocking object reader against moto: byte-exact, bounded memory, offsets, pinned ETags.
    @Suite struct Reading {
        @Test func gzipObjectByteExact() async throws {
            let moto = try MotoFixture.shared
            let client = try moto.client()
            let expected = moto.open.object("gz/events.ndjson.gz")
            let result = await readOnThread(keep: true) { client.reader(bucket: "replay-objects", key: "gz/events.ndjson.gz", etag: nil) }
            #expect(result.error == nil)
            #expect(result.count == expected.size)
            #expect(result.sha256 == expected.sha256)
            #expect(result.bytes.prefix(2) == [0x1F, 0x8B])
            #expect(result.etag?.hasPrefix("\"") == true)
            #expect(result.reopenOffsets.isEmpty)
        }

        /// 20 MiB through a 1 MiB buffer, with a consumer that stops after its first read until the
        /// body filled the buffer: backpressure holds the rest in the network, and memory stays at
        /// the bound.
        @Test func largeObjectStreamsWithFlatMemory() async throws {
            let moto = try MotoFixture.shared
            let client = try moto.client(settings: { $0.readBufferBytes = 1 << 20 })
            let expected = moto.open.object("big/20mib.ndjson")
            let result = await readOnThread(chunk: 256 << 10, waitForAFullBuffer: true) {
                client.reader(bucket: "replay-objects", key: "big/20mib.ndjson", etag: nil)
            }
            #expect(result.error == nil)
            #expect(result.count == expected.size)
            #expect(result.sha256 == expected.sha256)
            #expect(result.peakBufferedBytes >= 512 << 10, "the buffer should have filled while the reader paused")
            #expect(result.peakBufferedBytes <= (1 << 20) + (256 << 10), "peak \(result.peakBufferedBytes)")
        }

        @Test(arguments: [1 as UInt64, 4096, 65_536, 70_021, 70_022])
        func startsAtAnOffset(_ offset: UInt64) async throws {
            let client = try MotoFixture.shared.client()
            let key = "special/ key with spaces+and=signs ✓.ndjson"
            let whole = await readOnThread(keep: true) { client.reader(bucket: "replay-objects", key: key, etag: nil) }
            let tail = await readOnThread(keep: true) {
                client.reader(bucket: "replay-objects", key: key, etag: whole.etag, offset: offset, size: UInt64(whole.count))
            }
            #expect(whole.error == nil && tail.error == nil)
            #expect(whole.count == 70_022)
            #expect(tail.bytes == Array(whole.bytes[Int(offset)...]))
        }

        @Test func emptyObject() async throws {
            let client = try MotoFixture.shared.client()
            let result = await readOnThread { client.reader(bucket: "replay-objects", key: "zero.ndjson", etag: nil) }
            #expect(result.error == nil)
            #expect(result.count == 0)
        }

        /// A resume from a checkpoint whose object was overwritten since: 412, a distinct error.
        @Test func changedObjectIsReportedOnResume() async throws {
            let client = try MotoFixture.shared.client()
            let key = "changing/resume.ndjson"
            let firstETag = try await putObject(client, bucket: "replay-objects", key: key, body: Array(repeating: 65, count: 100_000))
            let before = await readOnThread(chunk: 10_000) { client.reader(bucket: "replay-objects", key: key, etag: firstETag) }
            #expect(before.error == nil && before.count == 100_000)
            let secondETag = try await putObject(client, bucket: "replay-objects", key: key, body: Array(repeating: 66, count: 100_000))
            #expect(firstETag != secondETag)
            let after = await readOnThread { client.reader(bucket: "replay-objects", key: key, etag: firstETag, offset: 50_000) }
            let error = try #require(after.error)
            #expect(error.kind == .objectChanged)
            #expect(error.status == 412)
            #expect(error.message.contains("s3://replay-objects/changing/resume.ndjson"))
            #expect(error.message.contains(firstETag))
            #expect(after.count == 0)
        }

        /// The async API: a GET whose body the caller streams.
        @Test func getObjectStreams() async throws {
            let moto = try MotoFixture.shared
            let client = try moto.client()
            let stream = try await client.getObject(bucket: "replay-objects", key: "gz/events.ndjson.gz", from: 100)
            var count = 0
            for try await chunk in stream.body { count += chunk.readableBytes }
            #expect(count == moto.open.object("gz/events.ndjson.gz").size - 100)
            #expect(stream.head.rangeStart == 100)
            #expect(stream.head.size == UInt64(moto.open.object("gz/events.ndjson.gz").size))
        }
    }
}
