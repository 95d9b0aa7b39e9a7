import Foundation
#if canImport(XCTest)
import XCTest

/// A fresh directory under the temporary directory, named `prefix`-UUID and
/// removed with what it holds when `test` ends: XCTest keeps every test case
/// object, and what it stores, to the end of the run, so a removal left to
/// a deinit never comes.
package func temporaryDirectory(_ prefix: String, removedAfter test: XCTestCase) throws -> String {
    let dir = NSTemporaryDirectory() + "\(prefix)-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
    return dir
}
#endif
