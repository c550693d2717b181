import ServerLifecycle

extension CollectorServer {
    /// Starts serving in the background (a `ServiceGroup` of its own, without signal handling)
    /// and returns the bound port: the helper for tests and mr-replay's embedded collector.
    /// Stop it with ``shutdown()``. Code that owns a `ServiceGroup` runs the server as a service
    /// instead.
    /// - Throws: a second call's `alreadyStarted`, or the store or bind error.
    package func start() async throws -> Int {
        try await embedded.startListening(self, logger: logger, listening: listening)
    }

    /// Stops a server started with ``start()``: stops accepting connections, lets in-flight
    /// requests finish, then flushes and closes the store.
    package func shutdown() async throws {
        try await embedded.shutdown()
    }

    /// Serves in the background until the calling task is cancelled, then shuts down gracefully
    /// (in-flight requests finish, the store is flushed) instead of cancelling the server, which
    /// would log errors: how a caller that owns no `ServiceGroup` runs it as a child task (the
    /// embedded collector of `mr-replay`).
    package func serveUntilCancelled() async throws {
        _ = try await start()
        // Parked until the task is cancelled, which ends the iteration: nothing ever arrives.
        let (cancelled, continuation) = AsyncStream<Never>.makeStream()
        for await _ in cancelled {}
        continuation.finish()
        try await shutdown()
    }

    /// `http://HOST:PORT` (`https` with TLS) once the server listens; throws why it will not.
    package func listeningURL() async throws -> String {
        "\(configuration.scheme)://\(configuration.host):\(try await listeningPort())"
    }
}
