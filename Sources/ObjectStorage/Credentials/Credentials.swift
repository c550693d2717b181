import Foundation

/// An access key, its secret and, for temporary credentials, a session token and an expiry.
///
/// Its description never shows the secret or the token: only a masked access key id.
package struct AWSCredentials: Sendable, Equatable, CustomStringConvertible {
    /// The access key id (`AKIA…`, `ASIA…` for temporary credentials).
    package var accessKeyID: String
    /// The secret access key. Never printed.
    package var secretAccessKey: String
    /// The session token of temporary credentials (sent as `x-amz-security-token`). Never printed.
    package var sessionToken: String?
    /// When temporary credentials stop working.
    package var expiration: Date?

    /// Credentials; `sessionToken` and `expiration` for temporary ones.
    package init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil, expiration: Date? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.expiration = expiration
    }

    /// The access key id with all but its last four characters masked, as `aws configure list` shows it.
    package var maskedAccessKeyID: String {
        accessKeyID.count <= 4
            ? String(repeating: "*", count: accessKeyID.count)
            : String(repeating: "*", count: accessKeyID.count - 4) + accessKeyID.suffix(4)
    }

    /// The masked key id only.
    package var description: String { "AWSCredentials(\(maskedAccessKeyID))" }
}

/// Where requests get their credentials from.
package protocol CredentialProvider: Sendable {
    /// Where the credentials come from, for people ("the environment (AWS_ACCESS_KEY_ID)", "profile
    /// prod in /home/me/.aws/credentials"); never contains a secret.
    var source: String { get }

    /// Credentials valid now. Providers of temporary credentials refresh them before they expire.
    func credentials() async throws -> AWSCredentials
}

/// Fixed credentials (environment variables, a profile's keys, or given directly).
package struct StaticCredentialProvider: CredentialProvider {
    /// See ``CredentialProvider/source``.
    package let source: String
    private let value: AWSCredentials

    /// Credentials from `source` (a description without secrets).
    package init(_ credentials: AWSCredentials, source: String) {
        self.value = credentials
        self.source = source
    }

    /// The fixed credentials.
    package func credentials() async throws -> AWSCredentials { value }
}
