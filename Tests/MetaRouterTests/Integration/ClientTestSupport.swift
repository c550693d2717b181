import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
import MetaRouterTesting
import Testing

@_spi(PerLine) @testable import MetaRouterDelivery

/// Options for a client against a fake loopback host.
func clientOptions(_ edit: (inout ClientOptions) -> Void = { _ in }) -> ClientOptions {
    var o = ClientOptions(writeKey: "client-key", ingestionHost: "http://127.0.0.1:9")
    o.delivery.concurrency = 1
    edit(&o)
    return o
}

/// A fresh temporary directory path (not created).
func temporaryDirectory() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("mr-client-\(UUID().uuidString)").path
}

/// Starts `client.run()` in a task, as a service group would, and returns once it runs.
@discardableResult
func startRunning(_ client: MetaRouterClient) async -> Task<Void, any Error> {
    let task = Task { try await client.run() }
    await client.waitUntilStarted()
    return task
}
