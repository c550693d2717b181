import Foundation

/// One HTTP request the engine wants sent.
public struct DeliveryRequest: Sendable {
    /// The full URL (`host + path`).
    public var url: String
    /// Header fields in order.
    public var headers: [(name: String, value: String)]
    /// The body (gzipped when `Content-Encoding: gzip` is among the headers).
    public var body: [UInt8]
    /// How long the transport may take before reporting a network error.
    public var timeout: Duration

    /// Creates a request.
    public init(url: String, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration) {
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { HTTPFieldName.same($0.name, name) }?.value
    }
}

/// What came back for a request.
public enum DeliveryResponse: Sendable {
    /// The server answered with this status and headers.
    case status(Int, headers: [(String, String)])
    /// No HTTP answer (connection refused, reset, timeout, ...): worth retrying.
    case networkError(String)
    /// No HTTP answer because TLS failed in a way retrying cannot fix: the server's certificate
    /// is not trusted (unknown CA, another host's name, expired), or the server refused this
    /// client's certificate or its absence (mutual TLS). The engine stops
    /// (``StopCause/tlsFailure(_:)``); the string says what happened, for a person.
    case tlsFailure(String)

    /// The first value of header `name` (case-insensitive), if this is a status response.
    public func header(_ name: String) -> String? {
        guard case .status(_, let headers) = self else { return nil }
        return headers.first { HTTPFieldName.same($0.0, name) }?.1
    }

    /// The key used in ``DeliveryStats/responses``: the status code, `network_error` or `tls_error`.
    public var statsKey: String {
        switch self {
        case .status(let code, _): return String(code)
        case .networkError: return "network_error"
        case .tlsFailure: return "tls_error"
        }
    }
}

/// Sends one request; never throws: failures are ``DeliveryResponse/networkError(_:)`` or
/// ``DeliveryResponse/tlsFailure(_:)``.
public protocol DeliveryTransport: Sendable {
    /// Sends `request` and returns the server's answer.
    func send(_ request: DeliveryRequest) async -> DeliveryResponse
}
