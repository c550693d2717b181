/// The bytes a reader has pulled from its source and not yet consumed, in one block of memory
/// that the window owns: the readers' bounded buffer.
///
/// Bytes `start..<end` of ``bytes`` are pulled and unconsumed; ``offset`` is the source offset of
/// the byte at `start`. Pointers into ``bytes`` stay valid until the next ``fill(pull:)``, which
/// may move the unconsumed bytes to the front of the block or move them to a larger block. Used
/// by one thread at a time.
final class SourceWindow {
    /// The block; its size is ``capacity``.
    private(set) var bytes: UnsafeMutableRawBufferPointer
    /// The first unconsumed byte.
    private(set) var start = 0
    /// One past the last pulled byte.
    private(set) var end = 0
    /// The source offset of `bytes[0]`.
    private var base: Int
    /// The largest the block may grow to.
    let maximumCapacity: Int
    /// Whether the source has said it has no more bytes.
    private(set) var sourceEnded = false

    /// A window over a source whose first pulled byte is at source offset `offset`, with a block
    /// of `capacity` bytes that may grow to `maximumCapacity`.
    init(capacity: Int, maximumCapacity: Int, offset: Int = 0) {
        let capacity = max(capacity, 16)
        // Owned by the window: freed in `deinit`, or when a larger block replaces it.
        bytes = .allocate(byteCount: capacity, alignment: 16)
        self.maximumCapacity = max(maximumCapacity, capacity)
        base = offset
    }

    deinit { bytes.deallocate() }

    /// The size of the block.
    var capacity: Int { bytes.count }
    /// How many pulled bytes are unconsumed.
    var available: Int { end - start }
    /// The source offset of the first unconsumed byte.
    var offset: Int { base + start }
    /// Whether every pulled byte is consumed and the source has ended.
    var isExhausted: Bool { sourceEnded && start == end }

    /// The unconsumed byte `k` places after the first one (`k < available`).
    @inline(__always) func byte(_ k: Int) -> UInt8 {
        precondition(k >= 0 && start + k < end, "SourceWindow: read past the pulled bytes")
        return bytes[start + k]
    }

    /// A pointer to the first unconsumed byte, valid until the next ``fill(pull:)``.
    var pointer: UnsafeMutablePointer<UInt8> {
        // The block is allocated raw and holds only bytes (a trivial type), so viewing it as
        // UInt8 is the binding it already has; `start <= capacity` keeps the result in bounds
        // (one past the end at most, never read when `available == 0`).
        bytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + start
    }

    /// The unconsumed bytes, valid until the next ``fill(pull:)``.
    var unconsumed: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: pointer, count: available) }

    /// Marks `n` unconsumed bytes consumed.
    func consume(_ n: Int) {
        precondition(n >= 0 && n <= available, "SourceWindow: consumed more than is pulled")
        start += n
    }

    /// Pulls more bytes after the unconsumed ones: moves those to the front of the block first
    /// and, when they fill it, doubles the block up to ``maximumCapacity``. Returns how many bytes
    /// came, 0 when the source has ended or the block is full at its largest (tell the two apart
    /// with ``sourceEnded``).
    func fill(pull: (UnsafeMutableRawBufferPointer) throws -> Int) throws -> Int {
        if sourceEnded { return 0 }
        makeRoom()
        guard end < bytes.count else { return 0 }
        // The slice `end..<count` is inside the block and holds no unconsumed byte, so `pull`
        // may write any of it; `rebasing` gives it the block's memory without copying.
        let room = UnsafeMutableRawBufferPointer(rebasing: bytes[end...])
        let n = try pull(room)
        precondition(n >= 0 && n <= room.count, "SourceWindow: the source returned \(n) for \(room.count) bytes of room")
        if n == 0 { sourceEnded = true }
        end += n
        return n
    }

    /// Pulls until at least `count` bytes are unconsumed or the source ends; returns whether
    /// they are.
    func require(_ count: Int, pull: (UnsafeMutableRawBufferPointer) throws -> Int) throws -> Bool {
        while available < count {
            if try fill(pull: pull) == 0 { return available >= count }
        }
        return true
    }

    /// Moves the unconsumed bytes to the front, and grows the block when they fill it.
    private func makeRoom() {
        if start > 0 && (end == bytes.count || start >= bytes.count / 2 || start == end) {
            let n = available
            if n > 0, let from = bytes.baseAddress {
                // Both ranges lie inside the block; `copyMemory`'s rule allows overlap when the
                // destination is before the source (it is a memmove).
                bytes.baseAddress!.copyMemory(from: UnsafeRawPointer(from + start), byteCount: n)
            }
            base += start
            start = 0
            end = n
        }
        if end == bytes.count && bytes.count < maximumCapacity {
            let grown = UnsafeMutableRawBufferPointer.allocate(
                byteCount: min(bytes.count * 2, maximumCapacity), alignment: 16)
            // Both blocks hold at least `end` bytes and do not overlap (`grown` is new).
            grown.baseAddress!.copyMemory(from: bytes.baseAddress!, byteCount: end)
            bytes.deallocate()
            bytes = grown
        }
    }
}
