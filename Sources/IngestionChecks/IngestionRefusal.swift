import JSONCore

/// A request the ingestion checks refuse: the status and the reason both servers answer with,
/// in the body `{"success":false,"error":"reason"}`.
package struct IngestionRefusal: Error, Equatable, Sendable {
    /// The HTTP status.
    package var status: Int
    /// The reason, as the `error` member of the JSON body.
    package var reason: String
    /// Whether the server closes the connection after answering (a body too large to read).
    package var closesConnection: Bool

    /// A refusal with `status` and `reason`.
    package init(status: Int, reason: String, closesConnection: Bool = false) {
        self.status = status
        self.reason = reason
        self.closesConnection = closesConnection
    }

    /// `{"success":false,"error":"reason"}`.
    package var jsonBody: [UInt8] { Self.jsonBody(reason) }

    /// `{"success":false,"error":"reason"}` for any reason (also for answers outside these checks,
    /// such as 404 or an injected failure).
    package static func jsonBody(_ reason: String) -> [UInt8] {
        var text: [UInt8] = Array("{\"success\":false,\"error\":".utf8)
        JSONStrings.appendQuoted(reason, to: &text)
        text.append(UInt8(ascii: "}"))
        return text
    }

    /// 401: no valid `Authorization: Basic` header (and, for the full collector, no write key in
    /// the body either).
    package static let missingKey = IngestionRefusal(status: 401, reason: "missing or invalid write key")
}
