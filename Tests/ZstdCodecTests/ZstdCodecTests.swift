import Foundation
import Testing
import ZstdCodec

/// Frames written one after another read back as one stream, in pieces of any size; damage and
/// truncation are reported.
@Suite struct ZstdCodecTests {
    /// Lines of text, as partitions and inputs hold.
    static func text(lines: Int) -> [UInt8] {
        var out: [UInt8] = []
        for i in 0..<lines { out += Array("{\"type\":\"track\",\"event\":\"E\(i % 7)\",\"n\":\(i)}\n".utf8) }
        return out
    }

    /// Compresses `data` in `pieces`, ending a frame every `frameEvery` pieces.
    static func compress(_ data: [UInt8], piece: Int, frameEvery: Int, level: Int32 = 1) throws -> [UInt8] {
        let writer = try ZstdWriter(level: level)
        var out: [UInt8] = []
        var start = 0, count = 0
        while start < data.count {
            let end = min(start + piece, data.count)
            try data[start..<end].withUnsafeBytes { try writer.write($0, into: &out) }
            start = end
            count += 1
            if count % frameEvery == 0 { try writer.finishFrame(into: &out) }
        }
        if count % frameEvery != 0 || data.isEmpty { try writer.finishFrame(into: &out) }
        return out
    }

    /// Reads `compressed` back, pulling `pull` bytes at a time into `read`-sized buffers.
    static func decompress(_ compressed: [UInt8], pull: Int, read: Int) throws -> [UInt8] {
        let reader = try ZstdReader(pieceSize: max(pull, 64))
        var offset = 0
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: read)
        while true {
            let n = try buffer.withUnsafeMutableBytes { target in
                try reader.read(into: target) { room in
                    let n = min(room.count, pull, compressed.count - offset)
                    compressed[offset..<(offset + n)].withUnsafeBytes { room.copyMemory(from: $0) }
                    offset += n
                    return n
                }
            }
            if n == 0 { return out }
            out += buffer[0..<n]
        }
    }

    @Test(arguments: [(1, 1 << 20, 1), (4096, 3, 65_536), (100_000, 1, 7), (77, 10, 1000)])
    func framesReadBackAsOneStream(piece: Int, frameEvery: Int, read: Int) throws {
        // Byte-sized pieces or reads cost a libzstd call per byte: a smaller text for those.
        let data = Self.text(lines: piece < 8 || read < 8 ? 1_500 : 20_000)
        let compressed = try Self.compress(data, piece: piece, frameEvery: frameEvery)
        #expect(compressed.count < data.count / 3)
        #expect(ZstdMagic.matches(compressed))
        #expect(try Self.decompress(compressed, pull: 1000, read: read) == data)
        #expect(try Self.decompress(compressed, pull: 1 << 20, read: 1 << 16) == data)
    }

    @Test func negativeLevelsAreFasterForms() throws {
        let data = Self.text(lines: 5000)
        let compressed = try Self.compress(data, piece: 65_536, frameEvery: 4, level: -5)
        #expect(try Self.decompress(compressed, pull: 4096, read: 4096) == data)
    }

    @Test func aStreamCutInsideAFrameIsTruncated() throws {
        let data = Self.text(lines: 2000)
        let compressed = try Self.compress(data, piece: 1 << 20, frameEvery: 1)
        #expect(throws: ZstdError.truncated) { try Self.decompress(Array(compressed.dropLast(5)), pull: 512, read: 512) }
        // Cut at a frame's end, it is whole: what was written before the cut is there.
        let twoFrames = try Self.compress(data, piece: data.count / 2, frameEvery: 1)
        let firstFrame = try Self.compress(Array(data[0..<(data.count / 2)]), piece: 1 << 20, frameEvery: 1)
        #expect(twoFrames.starts(with: firstFrame))
        #expect(try Self.decompress(firstFrame, pull: 512, read: 512) == Array(data[0..<(data.count / 2)]))
    }

    @Test func damagedDataIsCorrupt() throws {
        var compressed = try Self.compress(Self.text(lines: 2000), piece: 1 << 20, frameEvery: 1)
        for i in stride(from: 20, to: compressed.count - 8, by: 97) { compressed[i] ^= 0x5A }
        #expect(throws: ZstdError.self) { try Self.decompress(compressed, pull: 512, read: 512) }
        #expect(throws: ZstdError.self) { try Self.decompress(Array("not zstd at all".utf8), pull: 512, read: 512) }
    }
}
