import InputShapes
import TestSupport

/// A source over bytes in memory that hands them out in pieces of chosen sizes, as a file or a
/// network stream might: fixed-size pieces, or sizes drawn from a seeded generator.
final class ByteSource {
    private let bytes: [UInt8]
    private var position: Int
    private var sizes: () -> Int

    /// Hands out `bytes` from `start` in pieces of at most `pieceSize` bytes.
    init(_ bytes: [UInt8], from start: Int = 0, pieceSize: Int = .max) {
        self.bytes = bytes
        position = start
        sizes = { pieceSize }
    }

    /// Hands out `bytes` from `start` in pieces of 1 to `maxPiece` bytes drawn from `seed`.
    init(_ bytes: [UInt8], from start: Int = 0, randomPiecesUpTo maxPiece: Int, seed: UInt64) {
        self.bytes = bytes
        position = start
        var random = SeededRandom(seed: seed)
        sizes = { random.int(1...maxPiece) }
    }

    /// How many bytes are handed out so far, from the start of `bytes`.
    var offset: Int { position }

    /// The pull closure the readers take.
    func pull(_ room: UnsafeMutableRawBufferPointer) -> Int {
        let n = min(room.count, bytes.count - position, max(sizes(), 1))
        guard n > 0 else { return 0 }
        bytes.withUnsafeBytes { source in
            // `room` has space for n bytes and `source` holds n from `position` on.
            room.baseAddress!.copyMemory(from: source.baseAddress! + position, byteCount: n)
        }
        position += n
        return n
    }
}

/// Bytes of a string.
func utf8(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Bytes as text, for messages.
func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
