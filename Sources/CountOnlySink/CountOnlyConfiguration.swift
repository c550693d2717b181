/// What the count-only sink binds and checks.
package struct CountOnlyConfiguration: Sendable, Equatable {
    /// Interface to bind, by default loopback.
    package var host: String
    /// Port to bind; 0 picks a free port.
    package var port: Int
    /// The write key clients must send in `Authorization: Basic base64(writeKey:)`.
    package var writeKey: String
    /// Path prefix in front of `/v1/batch` and `/stats`, e.g. `/collector` (empty for none).
    package var basePath: String
    /// Status for bodies, events or batches over Segment's limits: 400 (default) or 413.
    package var oversizeStatus: Int

    /// A configuration; only `writeKey` is required.
    package init(
        host: String = "127.0.0.1", port: Int = 0, writeKey: String, basePath: String = "", oversizeStatus: Int = 400
    ) {
        self.host = host
        self.port = port
        self.writeKey = writeKey
        self.basePath = basePath
        self.oversizeStatus = oversizeStatus
    }
}
