import XCTest
final class CollectorTestsPlaceholder: XCTestCase { func testNothing() {} }
