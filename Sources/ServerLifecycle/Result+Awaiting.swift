extension Result where Failure == any Error {
    /// The result of `body`, thrown or returned.
    package init(awaiting body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
