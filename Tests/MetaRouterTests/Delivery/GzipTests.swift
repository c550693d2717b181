import Foundation
import Testing

@_spi(PerLine) @testable import MetaRouter

@Suite struct GzipTests {
    /// A megabyte of mostly repetitive bytes with some noise.
    static let large: [UInt8] = {
        var rng = SystemRandomNumberGenerator()
        return (0..<(1 << 20)).map { i in UInt8(truncatingIfNeeded: i % 251 == 0 ? Int(rng.next() % 256) : i % 64 + 32) }
    }()

    /// The bodies round-tripped.
    enum Body: CaseIterable, Sendable {
        case empty, oneByte, small, large
        var bytes: [UInt8] {
            switch self {
            case .empty: return []
            case .oneByte: return [0x7B]
            case .small: return Array("{\"batch\":[{\"a\":1}]}".utf8)
            case .large: return GzipTests.large
            }
        }
    }

    @Test(arguments: Body.allCases)
    func roundTripsEmptySmallAndLargeBodies(body: Body) throws {
        let zipped = try Gzip.compress(body.bytes)
        #expect(Array(zipped.prefix(2)) == [0x1F, 0x8B], "a gzip member")
        #expect(try Gzip.decompress(zipped) == body.bytes)
    }

    @Test func repetitiveDataShrinks() throws {
        #expect(try Gzip.compress(GzipTests.large).count < GzipTests.large.count / 2)
    }

    /// Compressors come from a shared pool; concurrent lanes must each get their own.
    @Test func concurrentCompressionGivesEachCallerItsOwnResult() async throws {
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
            #expect(try Gzip.decompress(zipped) == bodies[i])
        }
    }
}
