import XCTest
final class MetaRouterTestsPlaceholder: XCTestCase { func testNothing() {} }
