import Collector
import CountOnlySink
import ServiceLifecycle

/// The server `mr-collector` runs: the full collector or the count-only sink.
enum RunningSink {
    case full(CollectorServer)
    case countOnly(CountOnlyServer)

    /// The server as a service for the group.
    var service: any Service {
        switch self {
        case .full(let server): return server
        case .countOnly(let server): return server
        }
    }

    /// The interface it binds.
    var host: String {
        switch self {
        case .full(let server): return server.configuration.host
        case .countOnly(let server): return server.configuration.host
        }
    }

    /// `https` when it serves TLS, `http` otherwise.
    var scheme: String {
        switch self {
        case .full(let server): return server.configuration.scheme
        case .countOnly: return "http"
        }
    }

    /// Waits until it is listening; returns the port or throws why it will not listen.
    func listeningPort() async throws -> Int {
        switch self {
        case .full(let server): return try await server.listeningPort()
        case .countOnly(let server): return try await server.listeningPort()
        }
    }

    /// The counters as the `GET /stats` JSON.
    var statsJSON: String {
        switch self {
        case .full(let server): return server.stats().jsonText
        case .countOnly(let server): return server.stats().jsonText
        }
    }
}
