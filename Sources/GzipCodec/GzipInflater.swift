import CompressNIO
import NIOCore

/// Streaming gunzip of one gzip stream, fed in pieces of any size: several concatenated members
/// (as `gzip -d` reads them), output in pieces as the caller makes room. Used by one thread at a
/// time; ``reset()`` makes it ready for a new stream without allocating.
package final class GzipInflater {
    /// Where the current member stands after the last call.
    private enum Position {
        /// Nothing of a member has been read: at the very start, or just after a member ended.
        case betweenMembers
        /// Inside a member: zlib wants more input.
        case needsInput
        /// zlib filled the output and may hold more of it.
        case outputFull
        /// zlib took all the input without filling the output: either the member ended exactly
        /// there or it needs more input. The next call (or ``finish()``) tells which.
        case undecided
    }

    private let zlib: ZlibDecompressor
    private var position = Position.betweenMembers
    /// An empty buffer with storage, for asking zlib about its state without input (its base
    /// address must not be nil).
    private var empty = ByteBufferAllocator().buffer(capacity: 16)

    /// Creates an inflater for gzip streams.
    package init() throws(GzipError) {
        do {
            zlib = try ZlibDecompressor(algorithm: .gzip)
        } catch {
            throw .failed("zlib could not start decompression: \(error)")
        }
    }

    /// Whether zlib may hold decompressed bytes that did not fit the output yet: call
    /// ``inflate(from:to:)`` again with room in the output, even without more input.
    package var hasPendingOutput: Bool { position == .outputFull }

    /// Forgets the stream so far and starts a new one.
    package func reset() throws(GzipError) {
        do {
            try zlib.reset()
        } catch {
            throw .failed("zlib could not reset: \(error)")
        }
        position = .betweenMembers
    }

    /// Decompresses from `input` into the writable bytes of `output` until `input` is used up or
    /// `output` is full. A member that ends with input left starts the next member.
    /// - Throws: ``GzipError/corrupt(_:)`` for data that is not gzip.
    package func inflate(from input: inout ByteBuffer, to output: inout ByteBuffer) throws(GzipError) {
        while output.writableBytes > 0, input.readableBytes > 0 || position == .outputFull {
            if input.readableBytes == 0 {
                try step(from: &empty, to: &output)
            } else {
                try step(from: &input, to: &output)
            }
        }
    }

    /// Checks that the stream did not end inside a member.
    /// - Throws: ``GzipError/truncated`` when it did.
    package func finish() throws(GzipError) {
        switch position {
        case .betweenMembers: return
        case .needsInput, .outputFull: throw .truncated
        case .undecided:
            // With no input, zlib says Z_STREAM_END for an ended member, Z_BUF_ERROR otherwise.
            var scratch = ByteBufferAllocator().buffer(capacity: 16)
            try step(from: &empty, to: &scratch)
            guard position == .betweenMembers else { throw .truncated }
        }
    }

    /// One zlib call, and what it says about the position.
    private func step(from input: inout ByteBuffer, to output: inout ByteBuffer) throws(GzipError) {
        let before = input.readableBytes
        do {
            try zlib.inflate(from: &input, to: &output)
        } catch let error as CompressNIOError where error == .bufferOverflow {
            position = .outputFull
            return
        } catch let error as CompressNIOError where error == .inputBufferOverflow {
            position = .needsInput
            return
        } catch let error as CompressNIOError where error == .corruptData {
            throw .corrupt("not gzip, or damaged")
        } catch {
            throw .failed("\(error)")
        }
        // Z_STREAM_END, or Z_OK with room left in the output and all the input taken. zlib
        // answers Z_STREAM_END again, taking nothing, when asked past a member's end: input left
        // over, or a probe without input after an undecided call, means the member ended.
        if input.readableBytes > 0 || (before == 0 && position == .undecided) {
            try reset()
        } else {
            position = .undecided
        }
    }
}
