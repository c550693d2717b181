// A stand-in for the engine's DeliveryConfiguration in the fuzz build, compiled into the
// MetaRouterDelivery module there: the real one checks sizes with the batch encoder, which needs
// NIO. ReplayKit's config holds a value of it; the fuzzed path reads only `maxEventBytes`.

/// The engine settings ReplayKit's config holds (stand-in: the fields it names, the engine's defaults).
public struct DeliveryConfiguration: Sendable {
    public var host: String
    public var writeKey: String
    public var path = "/v1/batch"
    public var gzip = false
    public var userAgent: String?
    public var maxBatchEvents = 100
    public var maxEventBytes = 32_768
    public var concurrency = 4

    public init(host: String, writeKey: String) {
        self.host = host
        self.writeKey = writeKey
    }
}
