import NIOPosix
import ObjectStorage
import Testing

/// Where credentials and the region come from, with an injected environment and file system.
struct CredentialChainTests {
    /// The HTTP client of the providers (these tests send no request; it starts nothing).
    static let httpClient = ObjectHTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton)

    static let credentialsFile = """
        # comment
        [default]
        aws_access_key_id = AKIADEFAULT000000001
        aws_secret_access_key = defaultSecretKey/+0123456789abcdefghij

        [prod]
        aws_access_key_id=AKIAPROD000000000002
        aws_secret_access_key=prodSecretKey/+0123456789abcdefghijklm
        aws_session_token = prodSessionToken
        ; another comment
        [web]
        """
    static let configFile = """
        [default]
        region = eu-central-1
        [profile prod]
        region = ap-southeast-2
        s3 =
          addressing_style = path
          region = not-this-one
        [profile onlyconfig]
        aws_access_key_id = AKIACONFIG0000000003
        aws_secret_access_key = configSecret/0123456789abcdefghijklmn
        [profile web]
        role_arn = arn:aws:iam::123456789012:role/from-profile
        web_identity_token_file = /var/run/token
        [profile sso]
        sso_session = corp
        [sso-session corp]
        sso_region = us-east-1
        """

    static func sources(_ environment: [String: String]) -> ConfigurationSources {
        let files = [
            "/home/me/.aws/credentials": credentialsFile, "/home/me/.aws/config": configFile,
            "/etc/creds": "[prod]\naws_access_key_id = AKIAOTHERFILE0000004\naws_secret_access_key = otherFileSecret0123456789\n",
        ]
        return ConfigurationSources(environment: ["HOME": "/home/me"].merging(environment) { $1 }) { files[$0] }
    }

    static func resolve(_ environment: [String: String]) async throws -> (source: String, credentials: AWSCredentials) {
        let provider = try CredentialChain.resolve(
            sources: sources(environment), settings: S3Settings(), region: "us-east-1",
            httpClient: Self.httpClient, timing: .live)
        return (provider.source, try await provider.credentials())
    }

    @Test func environmentComesFirst() async throws {
        let (source, credentials) = try await Self.resolve([
            "AWS_ACCESS_KEY_ID": "AKIAENVIRONMENT00009", "AWS_SECRET_ACCESS_KEY": "envSecretValue/0123456789",
            "AWS_SESSION_TOKEN": "envToken", "AWS_PROFILE": "prod",
        ])
        #expect(
            credentials
                == AWSCredentials(
                    accessKeyID: "AKIAENVIRONMENT00009", secretAccessKey: "envSecretValue/0123456789",
                    sessionToken: "envToken"))
        #expect(source == "the environment (AWS_ACCESS_KEY_ID ****************0009 with AWS_SESSION_TOKEN)")
    }

    @Test(
        arguments: [
            ([:], "AKIADEFAULT000000001", nil, "profile \"default\" in /home/me/.aws/credentials"),
            (["AWS_PROFILE": "prod"], "AKIAPROD000000000002", "prodSessionToken", "profile \"prod\" in /home/me/.aws/credentials"),
            (["AWS_PROFILE": "onlyconfig"], "AKIACONFIG0000000003", nil, "profile \"onlyconfig\" in /home/me/.aws/config"),
            (["AWS_PROFILE": "prod", "AWS_SHARED_CREDENTIALS_FILE": "/etc/creds"], "AKIAOTHERFILE0000004", nil, "profile \"prod\" in /etc/creds"),
            (["AWS_ACCESS_KEY_ID": "AKIAONLYHALF", "AWS_PROFILE": "prod"], "AKIAPROD000000000002", "prodSessionToken", "profile \"prod\""),
        ] as [([String: String], String, String?, String)])
    func profiles(_ environment: [String: String], _ keyID: String, _ token: String?, _ sourcePrefix: String) async throws {
        let (source, credentials) = try await Self.resolve(environment)
        #expect(credentials.accessKeyID == keyID)
        #expect(credentials.sessionToken == token)
        #expect(source.hasPrefix(sourcePrefix))
        #expect(!source.contains(credentials.secretAccessKey))
        #expect(source.contains(credentials.maskedAccessKeyID))
    }

    @Test(arguments: [
        (["AWS_PROFILE": "missing"], "profile \"missing\" not found in /home/me/.aws/credentials or /home/me/.aws/config"),
        (["AWS_PROFILE": "sso"], "uses sso_session, which this reader does not support"),
        (["HOME": "/nowhere"], "no AWS credentials found"),
    ])
    func saysWhatIsMissing(_ environment: [String: String], _ message: String) async {
        await #expect {
            _ = try await Self.resolve(environment)
        } throws: { error in
            guard let error = error as? S3Error else { return false }
            return error.kind == .credentials && error.message.contains(message)
        }
    }

    @Test func webIdentityFromEnvironmentOrProfile() throws {
        let fromEnvironment = try CredentialChain.resolve(
            sources: Self.sources([
                "AWS_WEB_IDENTITY_TOKEN_FILE": "/var/run/eks/token", "AWS_ROLE_ARN": "arn:aws:iam::1:role/r",
                "AWS_ENDPOINT_URL_STS": "http://127.0.0.1:1",
            ]),
            settings: S3Settings(), region: "eu-west-1", httpClient: Self.httpClient, timing: .live)
        #expect(fromEnvironment.source.contains("role arn:aws:iam::1:role/r with the token in /var/run/eks/token"))
        #expect(fromEnvironment.source.contains("through STS at http://127.0.0.1:1"))
        let fromProfile = try CredentialChain.resolve(
            sources: Self.sources(["AWS_PROFILE": "web"]), settings: S3Settings(),
            region: "eu-west-1", httpClient: Self.httpClient, timing: .live)
        #expect(fromProfile.source.contains("profile \"web\" in /home/me/.aws/config"))
        #expect(fromProfile.source.contains("through STS at https://sts.eu-west-1.amazonaws.com"))
    }

    @Test(arguments: [
        (S3Settings(region: "sa-east-1"), ["AWS_REGION": "us-west-2"], "sa-east-1"),
        (S3Settings(), ["AWS_REGION": "us-west-2", "AWS_DEFAULT_REGION": "us-west-1"], "us-west-2"),
        (S3Settings(), ["AWS_DEFAULT_REGION": "us-west-1"], "us-west-1"),
        (S3Settings(), ["AWS_PROFILE": "prod"], "ap-southeast-2"),
        (S3Settings(), [:], "eu-central-1"),
        (S3Settings(), ["HOME": "/nowhere"], "us-east-1"),
    ])
    func region(_ settings: S3Settings, _ environment: [String: String], _ expected: String) {
        #expect(settings.resolveRegion(Self.sources(environment)) == expected)
    }

    @Test func endpointFromSettingOrEnvironment() throws {
        let sources = Self.sources(["AWS_ENDPOINT_URL_S3": "http://127.0.0.1:9000", "AWS_ENDPOINT_URL": "http://127.0.0.1:1"])
        #expect(try S3Settings().resolveEndpoint(sources, region: "x").description == "http://127.0.0.1:9000")
        #expect(try S3Settings(endpoint: "https://minio.local").resolveEndpoint(sources, region: "x").description == "https://minio.local")
        #expect(try S3Settings().resolveEndpoint(Self.sources([:]), region: "eu-west-1").description == "https://s3.eu-west-1.amazonaws.com")
        #expect(try S3Settings().resolveSTSEndpoint(sources, region: "x").description == "http://127.0.0.1:1")
    }

    @Test func credentialsNeverPrintTheirSecrets() {
        let credentials = AWSCredentials(accessKeyID: "AKIAABCDEFGH12345678", secretAccessKey: "topSecret", sessionToken: "tokenValue")
        #expect("\(credentials)" == "AWSCredentials(****************5678)")
        #expect(!String(reflecting: credentials).contains("topSecret"))
    }
}
