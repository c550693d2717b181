import IngestionChecks
import NIOCore
import NIOHTTP1

/// What every connection of one count-only server shares: paths, the ingestion checks,
/// pre-rendered answers and the stats. Immutable apart from the (locked) recorder.
final class CountOnlyEndpoint: Sendable {
    /// `{base}/v1/batch` and the stats paths.
    let paths: IngestionPaths
    /// The checks shared with the full collector.
    let policy: IngestionPolicy
    /// The counters.
    let stats: CountOnlyStatsRecorder
    /// `200 {"success":true}`, keep-alive (HTTP/1.1).
    let ok: ByteBuffer
    /// `200 {"success":true}` with `Connection: keep-alive` (HTTP/1.0 clients that asked for it).
    let okKeepAlive10: ByteBuffer
    /// `200 {"success":true}` with `Connection: close`.
    let okClose: ByteBuffer
    /// `100 Continue`, for clients that send `Expect: 100-continue`.
    let continueResponse: ByteBuffer

    init(configuration: CountOnlyConfiguration, stats: CountOnlyStatsRecorder) {
        paths = IngestionPaths(basePath: configuration.basePath)
        policy = IngestionPolicy(writeKey: configuration.writeKey, oversizeStatus: configuration.oversizeStatus)
        self.stats = stats
        let success = Array("{\"success\":true}".utf8)
        ok = Self.render(status: 200, body: success, connection: .keepAlive11)
        okKeepAlive10 = Self.render(status: 200, body: success, connection: .keepAlive10)
        okClose = Self.render(status: 200, body: success, connection: .close)
        continueResponse = ByteBuffer(string: "HTTP/1.1 100 Continue\r\n\r\n")
    }

    /// How a response ends the exchange.
    enum ConnectionHeader {
        /// HTTP/1.1 keep-alive: no header needed.
        case keepAlive11
        /// HTTP/1.0 keep-alive: `Connection: keep-alive`.
        case keepAlive10
        /// `Connection: close`; the server closes after writing.
        case close
    }

    /// The pre-rendered 200 for `connection`.
    func success(_ connection: ConnectionHeader) -> ByteBuffer {
        switch connection {
        case .keepAlive11: return ok
        case .keepAlive10: return okKeepAlive10
        case .close: return okClose
        }
    }

    /// A complete HTTP/1.1 response with a JSON body.
    static func render(status: Int, body: [UInt8], connection: ConnectionHeader, omitBody: Bool = false) -> ByteBuffer {
        var head = "HTTP/1.1 \(status) \(HTTPResponseStatus(statusCode: status).reasonPhrase)\r\n"
        head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n"
        switch connection {
        case .keepAlive11: break
        case .keepAlive10: head += "Connection: keep-alive\r\n"
        case .close: head += "Connection: close\r\n"
        }
        head += "\r\n"
        var buffer = ByteBuffer()
        buffer.reserveCapacity(head.utf8.count + body.count)
        buffer.writeString(head)
        if !omitBody { buffer.writeBytes(body) }
        return buffer
    }
}
