import GzipCodec
import NIOCore
import Testing

/// The package's one gzip implementation: whole buffers and streams in pieces.
@Suite struct GzipCodecTests {
    /// A `/v1/batch` body with one small track event per messageId in `ids` (the i-th one with
    /// `extra(i)` appended to its members), as a client would gzip it.
    static func body(_ ids: [String], extra: (Int) -> String = { _ in "" }) -> [UInt8] {
        let events = ids.enumerated().map { i, id in
            "{\"type\":\"track\",\"event\":\"E\",\"userId\":\"u1\",\"messageId\":\"\(id)\"\(extra(i))}"
        }
        return Array(("{\"batch\":[" + events.joined(separator: ",") + "]}").utf8)
    }

    static let batch: [UInt8] = body((0..<100).map { "m\($0)" }) { ",\"properties\":{\"n\":\($0)}" }

    @Test(arguments: [[], Array("x".utf8), batch, Array(repeating: 7, count: 300_000)])
    func roundTrips(_ bytes: [UInt8]) throws {
        let zipped = try GzipCodec.compress(bytes)
        #expect(zipped.starts(with: [0x1F, 0x8B]))
        #expect(try GzipCodec.decompress(zipped) == bytes)
    }

    @Test func batchesShrink() throws {
        let zipped = try GzipCodec.compress(Self.batch)
        #expect(zipped.count * 4 < Self.batch.count, "\(zipped.count) of \(Self.batch.count)")
    }

    @Test func concatenatedMembersAreOneStream() throws {
        let a = Array("first ".utf8)
        let b = Array("second".utf8)
        let both = try GzipCodec.compress(a) + GzipCodec.compress(b)
        #expect(try GzipCodec.decompress(both) == a + b)
    }

    @Test func concurrentCompressionSharesNoState() async throws {
        let bodies = (0..<32).map { i in Self.body(["c\(i)"]) }
        let zipped = try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
            for (i, body) in bodies.enumerated() { group.addTask { (i, try GzipCodec.compress(body)) } }
            return try await group.reduce(into: [Int: [UInt8]]()) { $0[$1.0] = $1.1 }
        }
        for (i, body) in bodies.enumerated() {
            #expect(try GzipCodec.decompress(zipped[i] ?? []) == body)
        }
    }

    @Test func refusesWhatIsNotWholeGzip() throws {
        let zipped = try GzipCodec.compress(Self.batch)
        #expect(throws: GzipError.truncated) { try GzipCodec.decompress(Array(zipped.dropLast(5))) }
        #expect(throws: GzipError.self) { try GzipCodec.decompress([0x1F, 0x8B, 1, 2, 3]) }
        #expect(throws: GzipError.corrupt("not gzip, or damaged")) { try GzipCodec.decompress(Array("plain".utf8)) }
        #expect(throws: GzipError.corrupt("not gzip, or damaged")) { try GzipCodec.decompress(zipped + [1, 2, 3]) }
    }

    @Test(arguments: [Self.batch.count - 1, Self.batch.count])
    func stopsAtTheLimit(maxSize: Int) throws {
        let zipped = try GzipCodec.compress(Self.batch)
        if maxSize < Self.batch.count {
            #expect(throws: GzipError.tooLarge) { try GzipCodec.decompress(zipped, maxSize: maxSize) }
        } else {
            #expect(try GzipCodec.decompress(zipped, maxSize: maxSize) == Self.batch)
        }
    }

    /// Fed in pieces of every size, with little output room, as the `.gz` input reader does.
    @Test(arguments: [1, 7, 512, 1 << 20])
    func inflatesAStreamInPieces(pieceSize: Int) throws {
        let first = Array(Self.batch.prefix(1000))
        let second = Array(Self.batch.dropFirst(1000))
        let zipped = try GzipCodec.compress(first) + GzipCodec.compress(second)
        let inflater = try GzipInflater()
        var out: [UInt8] = []
        var offset = 0
        var input = ByteBuffer()
        while offset < zipped.count || inflater.hasPendingOutput || input.readableBytes > 0 {
            if input.readableBytes == 0, offset < zipped.count {
                let end = min(offset + pieceSize, zipped.count)
                input = ByteBuffer(bytes: zipped[offset..<end])
                offset = end
            }
            var room = ByteBufferAllocator().buffer(capacity: 333)
            try inflater.inflate(from: &input, to: &room)
            out += room.readableBytesView
            if offset == zipped.count, input.readableBytes == 0, !inflater.hasPendingOutput { break }
        }
        try inflater.finish()
        #expect(out == Self.batch)
    }

    @Test func aStreamCutInsideAMemberIsTruncated() throws {
        let zipped = try GzipCodec.compress(Self.batch)
        let inflater = try GzipInflater()
        var input = ByteBuffer(bytes: zipped.prefix(zipped.count / 2))
        var room = ByteBufferAllocator().buffer(capacity: 1 << 20)
        try inflater.inflate(from: &input, to: &room)
        #expect(throws: GzipError.truncated) { try inflater.finish() }
        // A reset makes it ready for a whole stream again.
        try inflater.reset()
        var whole = ByteBuffer(bytes: zipped)
        room.clear()
        try inflater.inflate(from: &whole, to: &room)
        try inflater.finish()
        #expect(Array(room.readableBytesView) == Self.batch)
    }

    /// The file reader's path: compressed bytes pulled in pieces, output taken in small reads.
    @Test(arguments: [1, 100, 4096])
    func gunzipReaderStreamsMembersThroughSmallReads(readSize: Int) throws {
        let half = Self.batch.count / 2
        let zipped = try GzipCodec.compress(Array(Self.batch.prefix(half))) + GzipCodec.compress(Array(Self.batch.dropFirst(half)))
        let reader = try GunzipReader(pieceSize: 64)
        var offset = 0
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: readSize)
        while true {
            let n = try chunk.withUnsafeMutableBytes { buffer in
                try reader.read(into: buffer) { piece in
                    let n = min(piece.count, zipped.count - offset)
                    piece.copyBytes(from: zipped[offset..<(offset + n)])
                    offset += n
                    return n
                }
            }
            if n == 0 { break }
            out += chunk[0..<n]
        }
        #expect(out == Self.batch)
    }

    /// A cut stream: the bytes before the cut come out first, then the failure.
    @Test func gunzipReaderHandsOverBytesBeforeTheFailure() throws {
        let zipped = try GzipCodec.compress(Self.batch)
        let cut = Array(zipped.prefix(zipped.count - 10))
        let reader = try GunzipReader()
        var given = false
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        let pull: (UnsafeMutableRawBufferPointer) throws -> Int = { piece in
            guard !given else { return 0 }
            given = true
            piece.copyBytes(from: cut)
            return cut.count
        }
        let n = try chunk.withUnsafeMutableBytes { try reader.read(into: $0, pull: pull) }
        out += chunk[0..<n]
        #expect(n > 0)
        #expect(out == Array(Self.batch.prefix(n)))
        #expect(throws: GzipError.truncated) { _ = try chunk.withUnsafeMutableBytes { try reader.read(into: $0, pull: pull) } }
    }
}
