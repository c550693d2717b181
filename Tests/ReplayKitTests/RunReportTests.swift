import Foundation
import XCTest

@testable import ReplayKit

/// How a failing state directory at the end of a run shows in the report.
final class StateFailureReportTests: XCTestCase {
    func testAStateFailureAsksForARetryButNeverHidesAStrongerStop() {
        var done = RunReport()
        done.classify(early: nil, stopRequested: false, engineStop: nil)
        XCTAssertEqual(done.status, .completed)
        done.noteStateFailure("cannot save the checkpoint")
        XCTAssertEqual(done.status, .stoppedTransient)
        XCTAssertEqual(done.status.exitCode, 75)
        XCTAssertEqual(done.stopReason, "cannot save the checkpoint")

        var fatal = RunReport()
        fatal.classify(early: nil, stopRequested: false, engineStop: .fatalStatus(401))
        fatal.noteStateFailure("cannot write the report")
        XCTAssertEqual(fatal.status, .failedFatal, "a bad write key must not look retryable")
        XCTAssertTrue(fatal.stopReason?.hasSuffix("; cannot write the report") ?? false, fatal.stopReason ?? "")
    }
}
