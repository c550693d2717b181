import ServerLifecycle

extension CollectorServer {
    /// Starts serving in the background (a `ServiceGroup` of its own, without signal handling)
    /// and returns the bound port: the helper for tests. Stop it with ``shutdown()``. Code that
    /// owns a `ServiceGroup` runs the server as a service instead (as ``EmbeddedCollector`` does).
    /// - Throws: a second call's `alreadyStarted`, or the store or bind error.
    package func start() async throws -> Int {
        try await embedded.startListening(self, logger: logger, listening: listening)
    }

    /// Stops a server started with ``start()``: stops accepting connections, lets in-flight
    /// requests finish, then flushes and closes the store.
    package func shutdown() async throws {
        try await embedded.shutdown()
    }

    /// `http://HOST:PORT` (`https` with TLS) once the server listens; throws why it will not.
    package func listeningURL() async throws -> String {
        "\(configuration.scheme)://\(configuration.host):\(try await listeningPort())"
    }
}
