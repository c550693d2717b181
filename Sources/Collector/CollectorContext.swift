import Hummingbird
import NIOCore

/// The per-request context: Hummingbird's core storage plus the connection, so fault
/// injection can reset it.
struct CollectorContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The request's connection.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
