import XCTest
final class ReplayKitTestsPlaceholder: XCTestCase { func testNothing() {} }
