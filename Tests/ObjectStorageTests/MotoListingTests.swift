import ObjectStorage
import Testing

extension MotoTests {
    /// ListObjectsV2 against moto: pagination, key order, special characters, empty prefixes.
    @Suite struct Listing {
        @Test func followsContinuationTokensInKeyOrder() async throws {
            let moto = try MotoFixture.shared
            let client = try moto.client()
            let first = try await client.listPage(bucket: "replay-listing", prefix: "", continuationToken: nil)
            #expect(first.objects.count == 1000)
            #expect(first.nextContinuationToken != nil)
            let all = try await client.listObjects(bucket: "replay-listing", prefix: "")
            let expected = try #require(moto.open.setup.listingKeys)
            #expect(all.count == 1110)
            #expect(all.map(\.key) == expected.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
            #expect(all.allSatisfy { $0.size == UInt64($0.key.utf8.count) && $0.etag.hasPrefix("\"") && $0.lastModified != nil })
        }

        @Test func smallPagesWithTokens() async throws {
            let client = try MotoFixture.shared.client()
            let objects = try await client.listObjects(bucket: "replay-listing", prefix: "events/2024/", pageSize: 100)
            #expect(objects.count == 1105)
            #expect(objects.first?.key == "events/2024/01/01/part-00000.ndjson")
            #expect(objects.last?.key == "events/2024/01/01/part-01104.ndjson")
        }

        @Test func keysWithSpecialCharactersComeBackExactly() async throws {
            let client = try MotoFixture.shared.client()
            let objects = try await client.listObjects(bucket: "replay-listing", prefix: "special/")
            #expect(
                Set(objects.map(\.key)) == [
                    "special/with space.ndjson", "special/ünïcødé-ключ-✓.ndjson", "special/plus+equals=amp&.ndjson",
                    "special/percent%20literal.ndjson", "special/tilde~star*(paren)!.ndjson",
                ])
        }

        @Test(arguments: ["nothing-here/", "events/2025/", "zzz"])
        func aPrefixWithNoObjectsListsNothing(_ prefix: String) async throws {
            let client = try MotoFixture.shared.client()
            #expect(try await client.listObjects(bucket: "replay-listing", prefix: prefix).isEmpty)
            #expect(try await client.objects(at: S3Location(bucket: "replay-listing", path: prefix)).isEmpty)
        }

        /// What an `s3://` input names: a key, a folder written without its slash, or a prefix.
        @Test(arguments: [
            ("s3://replay-objects/small/hello.ndjson", ["small/hello.ndjson"]),
            ("s3://replay-objects/small", ["small/hello.ndjson"]),
            ("s3://replay-objects/smal", []),
            ("s3://replay-listing/special/with space.ndjson", ["special/with space.ndjson"]),
            ("s3://replay-objects/gz/", ["gz/events.ndjson.gz"]),
        ])
        func objectsAtALocation(_ text: String, _ keys: [String]) async throws {
            let client = try MotoFixture.shared.client()
            #expect(try await client.objects(at: S3Location(parsing: text)).map(\.key) == keys)
        }

        @Test func headAgreesWithTheListing() async throws {
            let client = try MotoFixture.shared.client()
            let listed = try #require(try await client.listObjects(bucket: "replay-objects", prefix: "gz/").first)
            let head = try await client.headObject(bucket: "replay-objects", key: listed.key)
            #expect(head.size == listed.size)
            #expect(head.etag == listed.etag)
            #expect(head.lastModified != nil)
        }
    }
}
