import NIOCore

/// A transport that takes the body as a `ByteBuffer` and runs a send on its caller's isolation:
/// the engine writes each batch once into a buffer from ``allocator`` and hands it over without
/// another copy; an engine given ``homeEventLoop`` as its event loop sends and hears the answer
/// without a thread hop.
package protocol BufferDeliveryTransport: DeliveryTransport {
    /// The one event loop every connection of the transport runs on, if there is one.
    var homeEventLoop: (any EventLoop)? { get }
    /// Allocates the buffers bodies are written into.
    var allocator: ByteBufferAllocator { get }
    /// Sends like ``DeliveryTransport/send(_:)``, with the body as a buffer, on `isolation`.
    func send(
        url: String, headers: [(name: String, value: String)], body: ByteBuffer, timeout: Duration,
        isolation: isolated (any Actor)?
    ) async -> DeliveryResponse
}
