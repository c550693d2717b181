import Foundation
@_spi(PerLine) import MetaRouter
import MetaRouterAsyncHTTPClient
import MetaRouterTesting
import NIOPosix
import Testing

@_spi(PerLine) @testable import MetaRouterDelivery

/// A TLS failure that retrying cannot fix stops the engine like a 401 (nothing discarded, no
/// retry); a transport whose TLS files cannot be used answers every request with one; the
/// client checks the files when its options are validated.
@Suite struct TLSFailureTests {
    @Test func aTLSFailureStopsTheEngineAtOnceWithoutDiscardingAnything() async {
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(clock: clock) { _, _ in .tlsFailure("the server's certificate is not trusted") }
        let (engine, stats, sink) = await runEngine(
            config { $0.maxAttempts = 5 }, transport, clock: clock,
            events: (0..<4).map { testEvent("m\($0)") })
        #expect(transport.requests.count == 1, "not retried")
        let stopCause = await engine.stopCause
        #expect(stopCause == .tlsFailure("the server's certificate is not trusted"))
        #expect(stats.eventsGivenUp == 0)
        #expect(stats.eventsNotDelivered == 4)
        #expect(stats.responses == ["tls_error": 1])
        #expect(sink.all.allSatisfy { $0.result == .notDelivered(.tlsFailure("the server's certificate is not trusted")) })
    }

    @Test func aNetworkErrorIsStillRetried() async {
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(clock: clock) { i, _ in i == 0 ? .networkError("reset") : .status(200, headers: []) }
        let (engine, stats, _) = await runEngine(config(), transport, clock: clock, events: [testEvent("m")])
        #expect(transport.requests.count == 2)
        #expect(stats.eventsDelivered == 1)
        let stopCause = await engine.stopCause
        #expect(stopCause == nil)
    }

    @Test func unusableFilesMakeEveryRequestATLSFailureAndFailValidation() async throws {
        let missing = "/nonexistent/mr-replay-test/ca.pem"
        let security = TransportSecurity(trust: .only(caFile: missing))
        #expect(throws: DeliveryConfigurationError(setting: TransportSecurity.Setting.caFile, "\(missing) does not exist")) {
            try security.check()
        }
        let transport = HTTPDeliveryTransport(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, security: security)
        let answer = await transport.send(DeliveryRequest(url: "https://127.0.0.1:9/v1/batch", headers: [], body: [], timeout: .seconds(1)))
        await transport.shutdown()
        guard case .tlsFailure(let why) = answer else { Issue.record("expected a TLS failure, got \(answer)"); return }
        #expect(why.contains(missing), "\(why)")

        var options = ClientOptions(writeKey: "k", ingestionHost: "https://ingest.example.com")
        options.security = TransportSecurity(clientCertificate: .init(certificateFile: missing, privateKeyFile: missing))
        #expect(throws: DeliveryConfigurationError.self) { try options.validate() }
        #expect(throws: Never.self) { try TransportSecurity().check() }
    }

    @Test func reasonNamesComeOutOfBoringSSLText() {
        let text = "[Error: 268436572 error:1000045c:SSL routines:OPENSSL_internal:TLSV1_ALERT_CERTIFICATE_REQUIRED at /x/tls_record.cc:491]"
        #expect(BoringSSLRefusal.reasonName(in: text, among: ["CERTIFICATE_REQUIRED"]) == "TLSV1_ALERT_CERTIFICATE_REQUIRED")
        #expect(BoringSSLRefusal.reasonName(in: text, among: ["CERTIFICATE_VERIFY_FAILED"]) == nil)
        #expect(BoringSSLRefusal.describe(CancellationError()) == nil, "not a TLS error")
        #expect(TLSRefusal.describe(CancellationError()) == nil, "not a TLS error")
    }
}
