/// Finds credentials in the order the AWS tools look for them:
/// 1. `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` (with `AWS_SESSION_TOKEN`);
/// 2. web identity: `AWS_WEB_IDENTITY_TOKEN_FILE` and `AWS_ROLE_ARN` (`AWS_ROLE_SESSION_NAME`),
///    exchanged with STS `AssumeRoleWithWebIdentity` (what a pod on EKS gets);
/// 3. the profile (`AWS_PROFILE`, default `default`): its keys in the shared credentials file,
///    else in the config file, else its `web_identity_token_file` and `role_arn`.
package enum CredentialChain {
    /// The first source that has credentials; throws ``S3Error/Kind/credentials`` when none has,
    /// or the profile asked for is missing or uses a method this reader does not support.
    package static func resolve(
        sources: ConfigurationSources, settings: S3Settings, region: String,
        httpClient: ObjectHTTPClient, timing: S3Timing
    ) throws(S3Error) -> any CredentialProvider {
        if let provider = environment(sources) { return provider }
        let sts = { () throws(S3Error) in try settings.resolveSTSEndpoint(sources, region: region) }
        if let tokenFile = sources.value("AWS_WEB_IDENTITY_TOKEN_FILE"), let role = sources.value("AWS_ROLE_ARN") {
            return WebIdentityCredentialProvider(
                tokenFile: tokenFile, roleARN: role, sessionName: sources.value("AWS_ROLE_SESSION_NAME"),
                stsEndpoint: try sts(), httpClient: httpClient, sources: sources, timing: timing,
                origin: "AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN")
        }
        if let profile = try ProfileCredentials.lookUp(sources) {
            switch profile {
            case .keys(let provider):
                return provider
            case .webIdentity(let tokenFile, let role, let sessionName, let origin):
                return WebIdentityCredentialProvider(
                    tokenFile: tokenFile, roleARN: role, sessionName: sessionName, stsEndpoint: try sts(),
                    httpClient: httpClient, sources: sources, timing: timing, origin: origin)
            }
        }
        throw S3Error(
            .credentials,
            """
            no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE with a \
            profile in \(sources.credentialsFilePath ?? "~/.aws/credentials"), or AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN
            """)
    }

    /// Credentials from `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`.
    package static func environment(_ sources: ConfigurationSources) -> StaticCredentialProvider? {
        guard let keyID = sources.value("AWS_ACCESS_KEY_ID"), let secret = sources.value("AWS_SECRET_ACCESS_KEY") else {
            return nil
        }
        let credentials = AWSCredentials(
            accessKeyID: keyID, secretAccessKey: secret,
            sessionToken: sources.value("AWS_SESSION_TOKEN"))
        let token = credentials.sessionToken == nil ? "" : " with AWS_SESSION_TOKEN"
        return StaticCredentialProvider(
            credentials, source: "the environment (AWS_ACCESS_KEY_ID \(credentials.maskedAccessKeyID)\(token))")
    }
}

/// A profile's credentials, from the shared credentials and config files.
enum ProfileCredentials {
    /// What a profile holds.
    enum Found {
        /// Access keys.
        case keys(StaticCredentialProvider)
        /// A web identity token file and a role.
        case webIdentity(tokenFile: String, role: String, sessionName: String?, origin: String)
    }

    /// The profile's credentials; nil when the default profile is absent from both files.
    static func lookUp(_ sources: ConfigurationSources) throws(S3Error) -> Found? {
        let name = sources.profileName
        let files: [(path: String, kind: ProfileFile.Kind)] = [
            sources.credentialsFilePath.map { ($0, .credentials) }, sources.configFilePath.map { ($0, .config) },
        ].compactMap { $0 }
        var found: [(path: String, settings: [String: String])] = []
        for file in files {
            guard let text = sources.readFile(file.path),
                let settings = ProfileFile(parsing: text, kind: file.kind).profile(name)
            else { continue }
            found.append((file.path, settings))
        }
        for (path, settings) in found {
            guard let keyID = settings["aws_access_key_id"], let secret = settings["aws_secret_access_key"] else { continue }
            let credentials = AWSCredentials(
                accessKeyID: keyID, secretAccessKey: secret,
                sessionToken: settings["aws_session_token"])
            return .keys(
                StaticCredentialProvider(
                    credentials, source: "profile \"\(name)\" in \(path) (key \(credentials.maskedAccessKeyID))"))
        }
        for (path, settings) in found {
            if let tokenFile = settings["web_identity_token_file"], let role = settings["role_arn"] {
                return .webIdentity(
                    tokenFile: tokenFile, role: role, sessionName: settings["role_session_name"],
                    origin: "profile \"\(name)\" in \(path)")
            }
        }
        if let (path, settings) = found.first {
            let method = ["role_arn", "credential_process", "sso_session", "sso_start_url"].first { settings[$0] != nil }
            throw S3Error(
                .credentials,
                """
                profile "\(name)" in \(path) has no aws_access_key_id and aws_secret_access_key\
                \(method.map { " (it uses \($0), which this reader does not support; export the credentials instead)" } ?? "")
                """)
        }
        if sources.value("AWS_PROFILE") != nil || sources.value("AWS_DEFAULT_PROFILE") != nil {
            throw S3Error(.credentials, "profile \"\(name)\" not found in \(files.map(\.path).joined(separator: " or "))")
        }
        return nil
    }
}
