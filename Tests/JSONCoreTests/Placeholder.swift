import XCTest
final class JSONCoreTestsPlaceholder: XCTestCase { func testNothing() {} }
