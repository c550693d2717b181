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

/// The report's `resources`: written with the report, read back, and absent from older reports.
@Suite struct RunReportResourcesTests {
    @Test func resourcesRoundTripAndSummarize() throws {
        var report = RunReport()
        var r = RunReport.Resources()
        r.cpuSeconds = 3.214
        r.cpuUserSeconds = 2.9
        r.cpuSystemSeconds = 0.314
        r.readingThreadCPUSeconds = 2.1
        r.deliveryThreadCPUSeconds = 1.02
        r.peakResidentBytes = 71_000_000
        report.resources = r
        let json = String(decoding: try report.encoded(), as: UTF8.self)
        #expect(json.contains("\"reading_thread_cpu_seconds\" : 2.1"))
        #expect(json.contains("\"peak_resident_bytes\" : 71000000"))
        let back = try JSONDecoder().decode(RunReport.self, from: Data(json.utf8))
        #expect(back.resources == r)
        #expect(report.summary.contains("  resources: CPU 3.21 s (reading 2.10 s, delivery 1.02 s), peak memory 71.0 MB"))
        // Without the threads' figures (a run that did not send over HTTP), only the process's.
        r.deliveryThreadCPUSeconds = nil
        #expect(r.summary == "CPU 3.21 s (reading 2.10 s), peak memory 71.0 MB")
    }

    @Test func anOlderReportHasNoResources() throws {
        let old = #"{"status":"completed","events":{"read":1,"delivered":1}}"#
        let report = try JSONDecoder().decode(RunReport.self, from: Data(old.utf8))
        #expect(report.resources == nil)
        #expect(!report.summary.contains("resources:"))
    }
}
