/// What the engine does with one response (the "Delivery & Backoff" status table).
enum StatusAction: Sendable, Equatable {
    /// 2xx: the batch is delivered.
    case success
    /// 5xx, 408, 429, network error: retry the same batch after a wait; counts toward the breaker.
    case retry
    /// 413: halve the batch size and retry; a single event is given up as `too_large`.
    case tooLarge
    /// 401, 403, 404: stop the engine, nothing more can be sent.
    case fatal(Int)
    /// A TLS failure that retrying cannot fix (untrusted certificate, client certificate refused): stop the engine.
    case fatalTLS(String)
    /// 400, 422 and other 4xx: bisect to isolate the bad events, give them up as `rejected_<status>`.
    case reject(Int)

    /// Classifies a response.
    static func classify(_ response: DeliveryResponse) -> StatusAction {
        switch response {
        case .networkError: return .retry
        case .tlsFailure(let why): return .fatalTLS(why)
        case .status(let code, _):
            switch code {
            case 200..<300: return .success
            case 408, 429, 500..<600: return .retry
            case 413: return .tooLarge
            case 401, 403, 404: return .fatal(code)
            case 400..<500: return .reject(code)
            default: return .retry  // 1xx/3xx are not answers an ingestion endpoint should give: try again
            }
        }
    }
}
