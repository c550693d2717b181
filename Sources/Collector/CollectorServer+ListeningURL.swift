extension CollectorServer {
    /// `http://HOST:PORT` (`https` with TLS) once the server listens; throws why it will not.
    package func listeningURL() async throws -> String {
        "\(configuration.scheme)://\(configuration.host):\(try await listeningPort())"
    }
}
