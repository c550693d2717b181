import Foundation
import RunReporting
import Testing

/// How a failing state directory at the end of a run shows in the report.
@Suite struct StateFailureReportTests {
    @Test func aStateFailureAsksForARetryButNeverHidesAStrongerStop() {
        var done = RunReport()
        done.classify(early: nil, stopRequested: false, engineStop: nil)
        #expect(done.status == .completed)
        done.noteStateFailure("cannot save the checkpoint")
        #expect(done.status == .stoppedTransient)
        #expect(done.status.exitCode == 75)
        #expect(done.stopReason == "cannot save the checkpoint")

        var fatal = RunReport()
        fatal.classify(early: nil, stopRequested: false, engineStop: .fatalStatus(401))
        fatal.noteStateFailure("cannot write the report")
        #expect(fatal.status == .failedFatal, "a bad write key must not look retryable")
        #expect(fatal.stopReason?.hasSuffix("; cannot write the report") ?? false, "\(fatal.stopReason ?? "")")

        var tls = RunReport()
        tls.classify(early: nil, stopRequested: false, engineStop: .tlsFailure("the server's certificate is not trusted"))
        #expect(tls.status == .failedFatal)
        #expect(tls.status.exitCode == 3, "an untrusted certificate is not retryable")
        #expect(tls.stopReason?.contains("the server's certificate is not trusted") ?? false)
    }
}
