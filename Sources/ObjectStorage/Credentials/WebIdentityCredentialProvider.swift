import Foundation
import NIOCore

/// Temporary credentials for a role, obtained with a web identity token (an EKS service account's,
/// say) through STS `AssumeRoleWithWebIdentity`, and obtained again before they expire.
///
/// The request is not signed (the token is the proof); the token file is read again for each
/// exchange, since the platform rotates it.
package actor WebIdentityCredentialProvider: CredentialProvider {
    /// See ``CredentialProvider/source``.
    package nonisolated let source: String
    /// Credentials are renewed when they have less than this left.
    package static let refreshMargin: TimeInterval = 300

    private let tokenFile: String
    private let roleARN: String
    private let sessionName: String?
    private let stsEndpoint: S3Endpoint
    private let httpClient: ObjectHTTPClient
    private let sources: ConfigurationSources
    private let timing: S3Timing
    private var cached: AWSCredentials?
    private var refreshing: Task<AWSCredentials, any Error>?

    /// A provider; `origin` says where the token file and role were configured.
    package init(
        tokenFile: String, roleARN: String, sessionName: String?, stsEndpoint: S3Endpoint,
        httpClient: ObjectHTTPClient, sources: ConfigurationSources, timing: S3Timing, origin: String
    ) {
        self.tokenFile = tokenFile
        self.roleARN = roleARN
        self.sessionName = sessionName
        self.stsEndpoint = stsEndpoint
        self.httpClient = httpClient
        self.sources = sources
        self.timing = timing
        self.source = "web identity (\(origin)): role \(roleARN) with the token in \(tokenFile), through STS at \(stsEndpoint)"
    }

    /// The cached credentials while they have more than ``refreshMargin`` left, else new ones.
    package func credentials() async throws -> AWSCredentials {
        if let cached, let expiration = cached.expiration,
            expiration.timeIntervalSince(timing.now()) > Self.refreshMargin
        {
            return cached
        }
        if let refreshing { return try await refreshing.value }
        let task = Task { try await self.assumeRole() }
        refreshing = task
        defer { refreshing = nil }
        let fresh = try await task.value
        cached = fresh
        return fresh
    }

    /// One exchange with STS, retried like S3 requests when a retry can fix the failure.
    private func assumeRole() async throws -> AWSCredentials {
        guard let token = sources.readFile(tokenFile)?.trimmingWhitespace(), !token.isEmpty else {
            throw S3Error(.credentials, "\(source): cannot read the token file \(tokenFile)")
        }
        var state = RetryState(policy: RetryPolicy())
        while true {
            let failure: AttemptFailure
            do {
                return try await exchange(token)
            } catch let error as AttemptFailure {
                failure = error
            }
            switch state.next(after: failure.failure, random: timing.random()) {
            case .retry(let delay):
                try await timing.sleep(delay)
            case .fail:
                throw S3Error(
                    .credentials, "\(source): STS refused AssumeRoleWithWebIdentity (\(failure.summary))",
                    status: failure.status, code: failure.body.code)
            }
        }
    }

    /// POSTs the form and parses the credentials.
    private func exchange(_ token: String) async throws -> AWSCredentials {
        let form = SigV4.canonicalQuery([
            SigV4.Parameter("Action", "AssumeRoleWithWebIdentity"), SigV4.Parameter("Version", "2011-06-15"),
            SigV4.Parameter("RoleArn", roleARN),
            SigV4.Parameter("RoleSessionName", sessionName ?? "mr-replay-\(Int(timing.now().timeIntervalSince1970))"),
            SigV4.Parameter("WebIdentityToken", token),
        ])
        let headers = ObjectHTTPHeaders([
            (name: "Host", value: stsEndpoint.authority),
            (name: "Content-Type", value: "application/x-www-form-urlencoded; charset=utf-8"), (name: "Accept", value: "text/xml"),
        ])
        let request = ObjectHTTPRequest(method: "POST", url: "\(stsEndpoint)/", headers: headers, body: ByteBuffer(string: form))
        let response: ObjectHTTPResponse
        let data: Data
        do {
            response = try await httpClient.execute(request, timeout: .seconds(30))
            data = Data(try await response.body.collect(upTo: 1 << 20).readableBytesView)
        } catch {
            guard let failure = AttemptFailure.transport(error) else { throw CancellationError() }
            throw failure
        }
        guard response.status == 200 else {
            throw AttemptFailure(status: response.status, body: S3ErrorBody(parsing: data))
        }
        guard let credentials = STSResponse.credentials(parsing: data) else {
            throw S3Error(.credentials, "\(source): the STS answer has no credentials")
        }
        return credentials
    }
}
