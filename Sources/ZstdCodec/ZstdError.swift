/// Why zstd data could not be produced or read.
package enum ZstdError: Error, Equatable, CustomStringConvertible {
    /// The data is not zstd, or is damaged; the payload is libzstd's word for it.
    case corrupt(String)
    /// The data ends inside a frame.
    case truncated
    /// libzstd could not start, or ran out of memory.
    case failed(String)

    /// A readable message.
    package var description: String {
        switch self {
        case .corrupt(let what): return "corrupt zstd data: \(what)"
        case .truncated: return "the zstd stream is truncated"
        case .failed(let what): return "zstd failed: \(what)"
        }
    }
}
