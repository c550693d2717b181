import NIOConcurrencyHelpers
import NIOCore

/// The idle keep-alive connections of one ``ObjectHTTPClient``, a few per `scheme://host:port`
/// (``HTTPTarget/poolKey``). A request takes the one that went idle last; a connection that
/// closes while idle leaves the pool; once the pool is shut down it keeps nothing.
final class IdleConnectionPool: Sendable {
    private struct State {
        var idle: [String: [any Channel]] = [:]
        var isShutDown = false
    }

    /// The most idle connections kept per key; more are closed.
    let maxPerKey: Int
    private let state = NIOLockedValueBox(State())

    /// A pool keeping at most `maxPerKey` idle connections per key.
    init(maxPerKey: Int) {
        self.maxPerKey = maxPerKey
    }

    /// Whether ``shutDown()`` was called.
    var isShutDown: Bool { state.withLockedValue { $0.isShutDown } }

    /// An idle, open connection for `key`, taken out of the pool, if there is one.
    func take(_ key: String) -> (any Channel)? {
        state.withLockedValue { state in
            while let channel = state.idle[key]?.popLast() {
                if channel.isActive { return channel }
            }
            return nil
        }
    }

    /// Keeps `channel`, now idle, for `key`; closes it when the pool is shut down or full.
    func put(_ channel: any Channel, key: String) {
        let kept = state.withLockedValue { state in
            guard !state.isShutDown, state.idle[key, default: []].count < maxPerKey else { return false }
            state.idle[key, default: []].append(channel)
            return true
        }
        if !kept { channel.close(promise: nil) }
    }

    /// Forgets `channel` (it closed).
    func remove(_ channel: any Channel, key: String) {
        state.withLockedValue { state in
            state.idle[key]?.removeAll { $0 === channel }
            if state.idle[key]?.isEmpty == true { state.idle[key] = nil }
        }
    }

    /// Keeps nothing from now on; returns the idle connections, for the caller to close.
    func shutDown() -> [any Channel] {
        state.withLockedValue { state in
            state.isShutDown = true
            defer { state.idle = [:] }
            return state.idle.values.flatMap { $0 }
        }
    }

    /// How many idle connections are kept for `key` (for tests).
    func idleCount(_ key: String) -> Int {
        state.withLockedValue { $0.idle[key]?.count ?? 0 }
    }
}
