import GzipCodec
import NIOCore
import SegmentAPI

/// The ingestion checks both servers share, in the order both apply them: write key (Basic
/// auth), content encoding, gzip decoding, size limits, batch shape. Each check takes the
/// request's header values or bytes and either passes or throws the ``IngestionRefusal`` to
/// answer with, so the collector and the count-only sink refuse alike.
package struct IngestionPolicy: Sendable {
    /// How a request body is encoded.
    package enum BodyEncoding: Sendable, Equatable {
        /// Plain bytes.
        case identity
        /// `Content-Encoding: gzip`.
        case gzip
    }

    /// What passed the checks.
    package struct Checked {
        /// The decoded (gunzipped when needed) body.
        package var body: ByteBuffer
        /// Whether a valid `Authorization: Basic` header came with it.
        package var authorized: Bool
        /// The batch's shape, for an authorized request (nil when the header was absent: the full
        /// collector then looks for the write key in the body).
        package var shape: BatchSkimmer.Summary?
    }

    /// The write key clients must send.
    package let writeKey: String
    /// The status for requests over Segment's limits (400 or 413).
    package let oversizeStatus: Int
    /// The exact `Authorization` value most clients send, checked first with one comparison.
    private let expectedAuthorization: String

    /// A policy for `writeKey` that answers limit violations with `oversizeStatus`.
    package init(writeKey: String, oversizeStatus: Int) {
        self.writeKey = writeKey
        self.oversizeStatus = oversizeStatus
        expectedAuthorization = BasicAuth.header(for: writeKey)
    }

    /// All the checks for one request, in order.
    /// - Parameters:
    ///   - authorization: the `Authorization` header, if any.
    ///   - contentEncoding: the `Content-Encoding` header, if any.
    ///   - body: the body as received.
    ///   - headerRequired: true when only a Basic header authenticates (the count-only sink);
    ///     false lets a request without one through unauthorized (the full collector reads a
    ///     write key from the body).
    ///   - scratch: where a gzip body is decoded; its storage is reused from call to call.
    ///   - inflater: a decompressor to reuse, if the caller keeps one.
    package func check(
        authorization: String?, contentEncoding: String?, body: ByteBuffer, headerRequired: Bool,
        scratch: inout ByteBuffer, inflater: GzipInflater? = nil
    ) throws(IngestionRefusal) -> Checked {
        let auth = self.authorization(authorization)
        if auth == .invalid || (headerRequired && auth != .valid) { throw IngestionRefusal.missingKey }
        let encoding = try self.encoding(contentEncoding)
        let decoded = try decode(body, encoding: encoding, scratch: &scratch, inflater: inflater)
        guard auth == .valid else { return Checked(body: decoded, authorized: false, shape: nil) }
        return Checked(body: decoded, authorized: true, shape: try batchShape(decoded))
    }

    /// Checks an `Authorization` header against the write key.
    package func authorization(_ header: String?) -> BasicAuth.Result {
        header == expectedAuthorization ? .valid : BasicAuth.check(header, writeKey: writeKey)
    }

    /// The encoding a `Content-Encoding` header names: none or `identity`, or `gzip`
    /// (case-insensitive); anything else is refused with 400.
    package func encoding(_ header: String?) throws(IngestionRefusal) -> BodyEncoding {
        guard let header else { return .identity }
        switch header.lowercased() {
        case "identity": return .identity
        case "gzip": return .gzip
        case let other: throw IngestionRefusal(status: 400, reason: "unsupported Content-Encoding \(other)")
        }
    }

    /// The refusal for a raw body over ``SegmentLimits/maxRawBodyBytes`` (the connection closes).
    package var rawBodyTooLarge: IngestionRefusal {
        IngestionRefusal(status: oversizeStatus, reason: "request body too large", closesConnection: true)
    }

    /// The body over ``SegmentLimits/maxBodyBytes`` after decoding.
    package var bodyTooLarge: IngestionRefusal {
        IngestionRefusal(status: oversizeStatus, reason: "body over \(SegmentLimits.maxBodyBytes) bytes")
    }

    /// Decodes `raw` and applies the body size limit (after decompression).
    /// - Returns: `raw` itself, or for gzip the decoded bytes (in `scratch`'s storage).
    package func decode(
        _ raw: ByteBuffer, encoding: BodyEncoding, scratch: inout ByteBuffer, inflater: GzipInflater? = nil
    ) throws(IngestionRefusal) -> ByteBuffer {
        let limit = SegmentLimits.maxBodyBytes
        switch encoding {
        case .identity:
            guard raw.readableBytes <= limit else { throw bodyTooLarge }
            return raw
        case .gzip:
            do {
                try GzipCodec.decompress(raw, into: &scratch, maxSize: limit, inflater: inflater)
            } catch GzipError.tooLarge {
                throw bodyTooLarge
            } catch {
                throw IngestionRefusal(status: 400, reason: "invalid gzip body")
            }
            return scratch
        }
    }

    /// The batch shape: a top-level `batch` array of at most 2,500 elements, none over 32 KiB.
    package func batchShape(_ body: ByteBuffer) throws(IngestionRefusal) -> BatchSkimmer.Summary {
        // Safe: ByteBuffer storage is plain bytes that NIO itself only reads and writes as UInt8,
        // so binding it to UInt8 matches every other access to it.
        let summary = body.withUnsafeReadableBytes { BatchSkimmer.skim($0.bindMemory(to: UInt8.self)) }
        guard let summary else { throw IngestionRefusal(status: 400, reason: "the body has no \"batch\" array") }
        if summary.events > SegmentLimits.maxBatchEvents {
            throw IngestionRefusal(status: oversizeStatus, reason: "more than \(SegmentLimits.maxBatchEvents) events")
        }
        if summary.largestEvent > SegmentLimits.maxEventBytes {
            throw IngestionRefusal(status: oversizeStatus, reason: "an event is over 32 KiB")
        }
        return summary
    }
}
