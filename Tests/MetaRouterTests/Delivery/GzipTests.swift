import XCTest

@testable import MetaRouter

final class GzipTests: XCTestCase {
    func testRoundTripsEmptySmallAndLargeBodies() throws {
        var rng = SystemRandomNumberGenerator()
        let large = (0..<(1 << 20)).map { i in UInt8(truncatingIfNeeded: i % 251 == 0 ? Int(rng.next() % 256) : i % 64 + 32) }
        for body in [[], [0x7B], Array("{\"batch\":[{\"a\":1}]}".utf8), large] {
            let zipped = try Gzip.compress(body)
            XCTAssertEqual(Array(zipped.prefix(2)), [0x1F, 0x8B], "a gzip member")
            XCTAssertEqual(try Gzip.decompress(zipped), body)
        }
        XCTAssertLessThan(try Gzip.compress(large).count, large.count / 2, "repetitive data shrinks")
    }

    /// Compressors come from a shared pool; concurrent lanes must each get their own.
    func testConcurrentCompressionGivesEachCallerItsOwnResult() async throws {
        let bodies = (0..<64).map { n in Array("{\"n\":\(n),\"pad\":\"\(String(repeating: "x", count: 1000 + n))\"}".utf8) }
        let results = try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
            for (i, body) in bodies.enumerated() {
                group.addTask { (i, try Gzip.compress(body)) }
            }
            var out = [[UInt8]](repeating: [], count: bodies.count)
            for try await (i, zipped) in group { out[i] = zipped }
            return out
        }
        for (i, zipped) in results.enumerated() {
            XCTAssertEqual(try Gzip.decompress(zipped), bodies[i])
        }
    }
}
