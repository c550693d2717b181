// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "mr-replay",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "mr-replay", targets: ["mr-replay"]),
        .executable(name: "mr-collector", targets: ["mr-collector"]),
        .library(name: "MetaRouter", targets: ["MetaRouter"]),
        // The delivery engine alone, for a server app that sends events it already has.
        .library(name: "MetaRouterDelivery", targets: ["MetaRouterDelivery"]),
        // The engine's transport on AsyncHTTPClient (swift-nio-ssl), for apps that already use it.
        .library(name: "MetaRouterAsyncHTTPClient", targets: ["MetaRouterAsyncHTTPClient"]),
        // Test doubles of the engine (a clock, a scripted transport, an in-memory file system) for
        // the package's tests and for apps that embed the engine.
        .library(name: "MetaRouterTesting", targets: ["MetaRouterTesting"]),
        .library(name: "Collector", targets: ["Collector"]),
        // Runs a collector for the length of a test body (`withRunningServer`).
        .library(name: "ServerTesting", targets: ["ServerTesting"]),
        .library(name: "ReplayKit", targets: ["ReplayKit"]),
        .library(name: "JSONCore", targets: ["JSONCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.1.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.25.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.29.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.0.0"),
    ],
    targets: [
        // Debian's libyaml (apt-get install -y libyaml-dev).
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        // Debian's SQLite (apt-get install -y libsqlite3-dev).
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // Debian's libdeflate (apt-get install -y libdeflate-dev): fast gzip for request bodies.
        .systemLibrary(
            name: "CDeflate",
            pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"])]
        ),
        // Debian's libzstd (apt-get install -y libzstd-dev): partitions and .zst inputs.
        .systemLibrary(
            name: "CZstd",
            pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"])]
        ),
        // Debian's OpenSSL libcrypto (apt-get install -y libssl-dev): SHA-256, SHA-1 and HMAC.
        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        // Debian's OpenSSL libssl (apt-get install -y libssl-dev): TLS for the HTTP clients and the collector.
        .systemLibrary(
            name: "CLibSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        // TLS for SwiftNIO channels on the system's OpenSSL (client and server), so no copy of
        // BoringSSL is built: a channel handler over memory BIOs and the shared context.
        .target(
            name: "SystemTLS",
            dependencies: [
                "CLibSSL",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
            ]
        ),
        // The package's digests (SHA-256 streaming and at once, SHA-1, HMAC-SHA256), on libcrypto.
        .target(name: "Digests", dependencies: ["CLibCrypto"]),
        // An event loop as a task executor, for the engine's lanes and the S3 reader's body task.
        .target(name: "EventLoopExecution", dependencies: [.product(name: "NIOCore", package: "swift-nio")]),
        // Segment's documented ingestion limits, for the engine and both servers.
        .target(name: "SegmentAPI"),
        .target(name: "JSONCore"),
        // Debian's libjq (apt-get install -y libjq-dev; no pkg-config file): the transforms' jq steps.
        .systemLibrary(name: "CJQ", providers: [.apt(["libjq-dev"])]),
        // zlib's raw deflate for zip members (zlib1g-dev, which CompressNIO needs too).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // Other analytics tools' exports (Amplitude, Mixpanel, GA4, mParticle, PostHog,
        // RudderStack) as Segment-spec events, record by record (docs/recipes.md).
        .target(name: "VendorExports", dependencies: ["JSONCore", "Timestamps"]),
        // Declarative steps and jq, applied to each event before it is enriched (docs/transforms.md).
        .target(name: "EventTransforms", dependencies: ["JSONCore", "CJQ"]),
        // Streaming readers of more input shapes: CSV/TSV records mapped to events, a JSON array
        // of events, zip members (docs/input-shapes.md).
        .target(name: "InputShapes", dependencies: ["JSONCore", "CZlib"]),
        // A cache-prefetch hint for the identity tables' lookups (Swift has none of its own).
        .target(name: "CPrefetch"),
        // SHA-1 with x86-64's SHA instructions, for the anonymousIds derived from userIds (a
        // UUIDv5 per line); swift-crypto's costs several times the hash itself per call.
        .target(name: "CSHA1"),
        // The package's one SQLite wrapper (connection, cached prepared statements, text binding).
        .target(name: "SQLiteSupport", dependencies: ["CSQLite"]),
        // The one timestamp grammar (ISO 8601 / RFC 3339) and calendar arithmetic, shared by the
        // engine, the ingestion checks and mr-replay.
        .target(name: "Timestamps"),
        // The package's one loop that writes a whole buffer to a file descriptor (short writes,
        // EINTR), shared by the engine's atomic file write, the collector's NDJSON store and
        // mr-replay's journals and outputs.
        .target(name: "SystemIO"),
        // The package's one gzip implementation: libdeflate for whole bodies, zlib (CompressNIO)
        // for streams.
        .target(
            name: "GzipCodec",
            dependencies: [
                "CDeflate",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ]
        ),
        // The package's one zstd implementation (libzstd): streaming compression in frames and
        // streaming decompression of concatenated frames.
        .target(name: "ZstdCodec", dependencies: ["CZstd"]),
        // What the collector and the count-only sink check and count, in one implementation:
        // write key, paths, limits, batch shape, the SimpleAnalytics payload, the `/stats` body.
        // The SimpleAnalytics Swift package's submissions, checked field by field: the one check
        // the collector's /simpleanalytics endpoint and mr-replay's SimpleAnalytics input share.
        .target(name: "SimpleAnalytics", dependencies: ["JSONCore", "Timestamps"]),
        .target(
            name: "IngestionChecks",
            dependencies: [
                "SegmentAPI",
                "GzipCodec",
                "JSONCore",
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // How the collector and the count-only sink listen and quiesce, and how their port is
        // awaited while their run() starts.
        .target(
            name: "ServerLifecycle",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The delivery engine of the MetaRouter SDK: batches, lanes, the circuit breaker, the status
        // table, 413 halving, Retry-After, and the HTTP transport (TLS on SystemTLS, proxies).
        .target(
            name: "MetaRouterDelivery",
            dependencies: [
                "SegmentAPI",
                "EventLoopExecution",
                "JSONCore",
                "GzipCodec",
                "Timestamps",
                "SystemIO",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "SystemTLS",
                .product(name: "NIOTLS", package: "swift-nio"),  // TLSUserEvent (lean transport's handshake)
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The MetaRouter SDK's client for a Swift app: events, identity, context, privacy and the
        // disk queue, sending through the delivery engine (which it re-exports).
        .target(
            name: "MetaRouter",
            dependencies: [
                "MetaRouterDelivery",
                "JSONCore",
                "Timestamps",
                "SystemIO",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The engine's transport on AsyncHTTPClient and swift-nio-ssl, for apps that already run
        // them (mr-replay does not: the lean transport has TLS and proxies on the system's OpenSSL).
        .target(
            name: "MetaRouterAsyncHTTPClient",
            dependencies: [
                "MetaRouterDelivery",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "MetaRouterTesting", dependencies: ["MetaRouterDelivery", "SystemIO", "JSONCore", "GzipCodec"]),
        // Runs the collector or the count-only sink for the length of a test body
        // (`withRunningServer`), in a ServiceGroup of its own.
        .target(
            name: "ServerTesting",
            dependencies: [
                "Collector", "CountOnlySink",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The loopback ingestion server: NIO's HTTP/1.1 codec, the shared checks, fault injection,
        // the stores, TLS through SystemTLS.
        .target(
            name: "Collector",
            dependencies: [
                "SegmentAPI",
                "JSONCore",
                "SQLiteSupport",
                "IngestionChecks",
                "SimpleAnalytics",
                "ServerLifecycle",
                "SystemIO",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                "SystemTLS",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The count-only benchmark sink (pre-rendered answers, no store): `CountOnlyServer` and
        // its parts, behind `mr-collector --count-only`.
        .target(
            name: "CountOnlySink",
            dependencies: [
                "SegmentAPI",
                "GzipCodec",
                "IngestionChecks",
                "ServerLifecycle",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Reading S3 and S3-compatible object storage: locations, settings, credentials, Signature
        // Version 4, the retry policy, listing and streaming, resumable reads. No AWS SDK.
        .target(
            name: "ObjectStorage",
            dependencies: [
                "EventLoopExecution",
                "SystemTLS",
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "Digests",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // mr-replay's configuration: the typed model (`ReplayConfig`), the YAML loader on libyaml
        // with its errors naming file, line and key, and the environment interpolation.
        .target(
            name: "ReplayConfiguration",
            dependencies: [
                "CYAML", "JSONCore", "MetaRouterDelivery", "ObjectStorage", "EventTransforms", "VendorExports", "InputShapes",
            ]
        ),
        // A run's report: report.json (`RunReport`), report.html, the run history, the batch
        // journal, the metrics file, the progress line's state machine and the exit statuses.
        .target(
            name: "RunReporting",
            dependencies: [
                "SystemIO", "JSONCore", "Timestamps", "MetaRouterDelivery",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .target(
            name: "ReplayKit",
            dependencies: [
                "ReplayConfiguration",
                "RunReporting",
                "JSONCore",
                "MetaRouterDelivery",
                "MetaRouter",
                "Timestamps",
                "SimpleAnalytics",
                "CYAML",
                "SQLiteSupport",
                "GzipCodec",
                "ObjectStorage",
                "SystemIO",
                "CPrefetch",
                "CSHA1",
                "ZstdCodec",
                "VendorExports",
                "EventTransforms",
                "InputShapes",
                .product(name: "Logging", package: "swift-log"),
                "Digests",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),  // the delivery transport's event loops
                // A run as a Service (RunService); the command builds the group it runs in.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // What both command-line tools share: how errors become exit statuses.
        .target(
            name: "CommandLineSupport",
            dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(
            name: "mr-replay",
            dependencies: [
                "ReplayKit",
                "SystemIO",
                "CommandLineSupport",
                "Collector",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            plugins: ["BuildInfoPlugin"]
        ),
        // Records the commit built, for `mr-replay --version`.
        .plugin(name: "BuildInfoPlugin", capability: .buildTool()),
        .executableTarget(
            name: "mr-collector",
            dependencies: [
                "Collector",
                "CommandLineSupport",
                "CountOnlySink",
                "ServerLifecycle",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            plugins: ["BuildInfoPlugin"]
        ),
        // What the test targets share (not shipped): one seeded generator, one way to run a
        // program, moto and its fault proxy, a latch, and the test certificates made at run time.
        .target(
            name: "TestSupport",
            dependencies: [
                // The file-system seam's crashing double (CrashableFileSystem).
                "SystemIO",
                // The fault proxy (FaultProxy).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // Test certificates made at run time (TLSTestPKI).
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/TestSupport"
        ),
        // The two servers' test harness: each server on an ephemeral port for a test body, talked
        // to over real HTTP or one raw connection, and the bodies Segment's libraries send.
        .target(
            name: "ServerTestHarness",
            dependencies: [
                "Collector", "CountOnlySink", "ServerTesting", "GzipCodec",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/ServerTestHarness"
        ),
        .testTarget(name: "JSONCoreTests", dependencies: ["JSONCore", "TestSupport"]),
        .testTarget(name: "DigestsTests", dependencies: ["Digests"]),
        .testTarget(
            name: "GzipCodecTests",
            dependencies: ["GzipCodec", .product(name: "NIOCore", package: "swift-nio")]
        ),
        .testTarget(name: "TimestampsTests", dependencies: ["Timestamps"]),
        .testTarget(name: "ZstdCodecTests", dependencies: ["ZstdCodec"]),
        .testTarget(name: "VendorExportsTests", dependencies: ["VendorExports", "JSONCore", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "EventTransformsTests", dependencies: ["EventTransforms", "JSONCore"]),
        .testTarget(name: "InputShapesTests", dependencies: ["InputShapes", "JSONCore", "CZlib", "TestSupport"]),
        .testTarget(name: "SystemIOTests", dependencies: ["SystemIO"]),
        .testTarget(
            name: "SystemTLSTests",
            dependencies: [
                "SystemTLS", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "MetaRouterTests",
            dependencies: [
                "MetaRouter", "MetaRouterDelivery", "MetaRouterAsyncHTTPClient", "MetaRouterTesting", "ServerTesting", "TestSupport", "Timestamps",
                "Collector", "JSONCore",
                "GzipCodec",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "CollectorTests",
            dependencies: [
                "Collector", "CountOnlySink", "ServerTesting", "ServerTestHarness", "IngestionChecks", "GzipCodec", "JSONCore", "SQLiteSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "CountOnlySinkTests",
            dependencies: [
                "CountOnlySink", "ServerTestHarness", "IngestionChecks", "GzipCodec", "JSONCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "IngestionChecksTests", dependencies: ["IngestionChecks", "JSONCore", "TestSupport"]),
        .testTarget(name: "RunReportingTests", dependencies: ["RunReporting", "JSONCore", "SystemIO", "TestSupport"]),
        .testTarget(
            name: "ReplayConfigurationTests", dependencies: ["ReplayConfiguration", "MetaRouterDelivery", "JSONCore", "TestSupport"]),
        // mr-replay's command line, run as the built binary.
        .testTarget(name: "MRReplayTests", dependencies: ["ReplayKit", "JSONCore", "TestSupport"]),
        .testTarget(
            name: "ReplayKitTests",
            dependencies: [
                "ReplayKit", "MetaRouter", "MetaRouterTesting", "ServerTesting", "Timestamps", "Collector", "ZstdCodec",
                "TestSupport",
                // Graceful shutdowns of a run's ServiceGroup (RunServiceTests).
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
                // The S3 tests' fault proxy (S3FaultProxy).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "ObjectStorageTests",
            dependencies: [
                "TestSupport",
                "ObjectStorage",
                // The HTTP client's tests serve HTTPS with it (LocalHTTPServer).
                "SystemTLS",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
    ]
)
