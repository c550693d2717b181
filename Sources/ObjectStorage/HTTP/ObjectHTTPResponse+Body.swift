import NIOCore

extension ObjectHTTPResponse {
    /// The bytes of an answer's body, chunk by chunk, read from the network only as fast as they
    /// are consumed: a chunk is read from the socket only when the consumer asks for the next one
    /// and none is waiting, so at most one read's worth is ever held.
    ///
    /// Iterate it once. When the body ends and the answer allows keep-alive, the connection goes
    /// back to the client's idle pool; when the body (every copy of it, and every iterator) is
    /// dropped before its end, the connection is closed. Bytes that arrived before a failure are
    /// handed out before it is thrown.
    package struct Body: AsyncSequence, Sendable {
        /// A chunk of the body.
        package typealias Element = ByteBuffer

        /// The stream, owned while this body or an iterator of it lives.
        private let owner: BodyOwner

        /// The body that `stream` delivers.
        init(_ stream: ResponseStream) {
            owner = BodyOwner(stream)
        }

        /// An iterator over the chunks.
        package func makeAsyncIterator() -> Iterator {
            Iterator(owner)
        }

        /// The whole body, which must have at most `maxBytes` bytes.
        /// - Throws: ``ObjectHTTPError`` (``ObjectHTTPError/Kind/bodyTooLarge`` when it is larger),
        ///   or `CancellationError`.
        package func collect(upTo maxBytes: Int) async throws -> ByteBuffer {
            var collected = ByteBuffer()
            for try await var chunk in self {
                guard collected.readableBytes + chunk.readableBytes <= maxBytes else {
                    throw ObjectHTTPError(.bodyTooLarge, "the answer's body is larger than \(maxBytes) bytes")
                }
                collected.writeBuffer(&chunk)
            }
            return collected
        }

        /// Reads the chunks one at a time.
        package struct Iterator: AsyncIteratorProtocol {
            /// The stream; the iterator keeps its body alive.
            private let owner: BodyOwner
            /// Abandons the body when the last copy of this iterator goes before the end.
            private let lifetime: IteratorLifetime

            init(_ owner: BodyOwner) {
                self.owner = owner
                lifetime = IteratorLifetime(owner.stream)
            }

            /// The next chunk, or nil at the end of the body.
            /// - Throws: ``ObjectHTTPError`` when the connection fails before the end, or
            ///   `CancellationError` when the task is cancelled while it waits (the connection is
            ///   then closed).
            package mutating func next() async throws -> ByteBuffer? {
                try await owner.stream.next()
            }
        }
    }
}

/// Owns a body's stream for the body and its iterators: when the last of them goes, a body not
/// read to its end is abandoned (its connection closed).
final class BodyOwner: Sendable {
    /// The stream.
    let stream: ResponseStream

    init(_ stream: ResponseStream) { self.stream = stream }

    deinit { stream.abandon() }
}

/// Abandons a body when an iterator over it goes before the body's end (a `for try await` loop
/// left early).
final class IteratorLifetime: Sendable {
    private let stream: ResponseStream

    init(_ stream: ResponseStream) { self.stream = stream }

    deinit { stream.abandon() }
}
