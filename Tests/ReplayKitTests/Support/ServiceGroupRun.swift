import Logging
import ReplayKit
import ServiceLifecycle

extension RunService {
    /// Runs this service in a `ServiceGroup` after `companions`, without signal handling, and
    /// returns what the work returned (or throws what it threw): the group `mr-replay` builds
    /// around a run (its `CommandServices`), for tests that shut the group down by hand. When
    /// the work ends, the group shuts down gracefully, the companions last.
    func runInGroup(after companions: [any Service] = [], logger: Logger) async throws -> Output {
        let services = (companions + [self]).map {
            ServiceGroupConfiguration.ServiceConfiguration(
                service: $0, successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup)
        }
        let group = ServiceGroup(configuration: .init(services: services, logger: logger))
        var groupError: (any Error)?
        do {
            try await group.run()
        } catch {
            groupError = error
        }
        guard let outcome else { throw groupError ?? CancellationError() }
        return try outcome.get()
    }
}
