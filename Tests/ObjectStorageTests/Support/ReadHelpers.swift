import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import ObjectStorage
import TestSupport

/// What reading an object to its end gave.
struct ReadResult: Sendable {
    var sha256 = ""
    var count = 0
    var bytes: [UInt8] = []
    var error: S3Error?
    var reopenOffsets: [UInt64] = []
    var peakBufferedBytes = 0
    var etag: String?
}

/// Reads the object `make` opens to its end on a thread of its own (as mr-replay's reader thread
/// does), hashing as it goes. `keep` keeps the bytes too; `waitForAFullBuffer` stops reading after
/// the first read (which starts the GET) until the body has filled the buffer, so backpressure
/// must hold the rest.
func readOnThread(
    keep: Bool = false, chunk: Int = 64 << 10, waitForAFullBuffer: Bool = false,
    _ make: @escaping @Sendable () -> S3ObjectReader
) async -> ReadResult {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            let reader = make()
            var result = ReadResult()
            var hash = SHA256()
            var buffer = [UInt8](repeating: 0, count: chunk)
            do {
                while true {
                    // `buffer` has `chunk` elements: its base address is valid for `chunk` bytes.
                    let n = try buffer.withUnsafeMutableBufferPointer { try reader.read(into: $0.baseAddress!, count: chunk) }
                    if n == 0 { break }
                    hash.update(data: buffer[..<n])
                    result.count += n
                    if keep { result.bytes += buffer[..<n] }
                    if result.count == n, waitForAFullBuffer { reader.waitUntilTheBufferIsFull() }
                }
            } catch {
                result.error = error as? S3Error
            }
            result.sha256 = hash.finalize().map { String(format: "%02x", $0) }.joined()
            result.reopenOffsets = reader.reopenOffsets
            result.peakBufferedBytes = reader.peakBufferedBytes
            result.etag = reader.etag
            continuation.resume(returning: result)
        }
    }
}

/// The hex SHA-256 of `bytes`.
func sha256Hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
    SHA256.hash(data: Array(bytes)).map { String(format: "%02x", $0) }.joined()
}

/// PutObject with this package's signer (the tests' way to write objects; the product only reads).
func putObject(_ client: S3Client, bucket: String, key: String, body: [UInt8]) async throws -> String {
    var request = client.builder.request("PUT", bucket: bucket, key: key, payloadHash: sha256Hex(body))
    request.sign(with: try await client.credentials.credentials(), region: client.region, at: Date())
    var headers = ObjectHTTPHeaders([(name: "Host", value: request.host)])
    for header in request.headers { headers.add(name: header.name, value: header.value) }
    let outgoing = ObjectHTTPRequest(method: "PUT", url: request.url, headers: headers, body: ByteBuffer(bytes: body))
    let response = try await client.httpClient.execute(outgoing, timeout: .seconds(30))
    _ = try await response.body.collect(upTo: 1 << 20)
    guard response.status == 200 else { throw Subprocess.Failure(description: "PUT \(key): \(response.status)") }
    return response.headers.first(name: "ETag") ?? ""
}

/// Timing whose back-offs are recorded instead of slept, with a fixed random value;
/// `onBlockingSleep` runs in place of each blocking sleep.
final class RecordingTiming: Sendable {
    private let sleeps = NIOLockedValueBox<[Duration]>([])
    private let hook: NIOLockedValueBox<(@Sendable () -> Void)?>

    init(onBlockingSleep: (@Sendable () -> Void)? = nil) { hook = NIOLockedValueBox(onBlockingSleep) }

    var recorded: [Duration] { sleeps.withLockedValue { $0 } }

    var timing: S3Timing {
        S3Timing(
            now: { Date() }, random: { 0.5 },
            sleep: { [sleeps] duration in sleeps.withLockedValue { $0.append(duration) } },
            blockingSleep: { [sleeps, hook] duration in
                sleeps.withLockedValue { $0.append(duration) }
                hook.withLockedValue { $0 }?()
            })
    }
}

/// Runs `body` on a task and blocks the calling thread until it is done (only for the hooks the
/// blocking reader calls in tests).
func blockingWait(_ body: @escaping @Sendable () async throws -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        try? await body()
        done.signal()
    }
    done.wait()
}
