import NIOCore
import NIOHTTP1
import SystemTLS

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ObjectHTTPError {
    /// What `error`, raised on a connection while an answer was awaited or read, means for the
    /// exchange: `phase` says how far the answer had come (``phase(headArrived:bodyBytes:)``).
    static func connection(_ error: any Error, phase: String) -> ObjectHTTPError {
        switch error {
        case let error as ObjectHTTPError:
            return error
        case let error as TLSConnectionError:
            return ObjectHTTPError(.tls, "TLS failed \(phase): \(error.detail)")
        case HTTPParserError.invalidEOFState:
            return closed(phase)
        case let error as HTTPParserError:
            return ObjectHTTPError(.malformedAnswer, "the answer is not HTTP/1.1 this client reads (\(error)) \(phase)")
        case let error as IOError:
            return ObjectHTTPError(.closed, "the connection failed \(phase): \(reason(error))")
        case ChannelError.ioOnClosedChannel, ChannelError.eof, ChannelError.alreadyClosed:
            return closed(phase)
        default:
            return ObjectHTTPError(.closed, "the connection failed \(phase): \(error)")
        }
    }

    /// The connection closed `phase`.
    static func closed(_ phase: String) -> ObjectHTTPError {
        ObjectHTTPError(.closed, "the connection closed \(phase)")
    }

    /// How far an answer had come: `before the answer arrived`, `after 1200 bytes of the body`.
    static func phase(headArrived: Bool, bodyBytes: Int) -> String {
        headArrived ? "after \(bodyBytes) bytes of the body" : "before the answer arrived"
    }

    /// An I/O error in words: `Connection reset by peer (errno 104)`.
    static func reason(_ error: IOError) -> String {
        "\(String(cString: strerror(error.errnoCode))) (errno \(error.errnoCode))"
    }
}
