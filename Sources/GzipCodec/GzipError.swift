/// Why gzip data could not be produced or read.
package enum GzipError: Error, Equatable, CustomStringConvertible {
    /// The decompressed data passed the caller's limit.
    case tooLarge
    /// The data is not gzip, or is damaged; the payload is zlib's word for it.
    case corrupt(String)
    /// The data ends inside a gzip member.
    case truncated
    /// zlib could not start or ran out of memory.
    case failed(String)

    /// A readable message.
    package var description: String {
        switch self {
        case .tooLarge: return "the decompressed data is over the limit"
        case .corrupt(let what): return "corrupt gzip data: \(what)"
        case .truncated: return "the gzip stream is truncated"
        case .failed(let what): return "gzip failed: \(what)"
        }
    }
}
