import Foundation
import Logging
import SysoundCore
import Synchronization
import XCTest
@testable import SysoundState

final class StateWatcherTests: XCTestCase {
    var root: String!
    var dir: StateDirectory!

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "sysound-watch-\(UUID().uuidString)"
        dir = StateDirectory(path: root + "/sysound")
        try dir.prepare()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Waits (generously, for CI) until the watcher's state satisfies `condition`.
    func eventually(_ watcher: StateWatcher, _ what: String, _ condition: (SystemState) -> Bool) {
        let deadline = Date().addingTimeInterval(3)
        while !condition(watcher.state) && Date() < deadline { usleep(1_000) }
        XCTAssertTrue(condition(watcher.state), "\(what); state is \(watcher.state)")
    }

    func testInitialStateComesFromTheFiles() throws {
        try ControlFiles(directory: dir).write(.locked, "1")
        let watcher = try StateWatcher(directory: dir)
        XCTAssertTrue(watcher.state.locked)
    }

    func testAtomicWriteAndPlainWriteAreSeen() throws {
        let watcher = try StateWatcher(directory: dir)
        let seen = Locked<[SystemState]>([])
        watcher.onChange { _, new in seen.withLock { $0.append(new) } }
        watcher.start()
        defer { watcher.stop() }
        try ControlFiles(directory: dir).write(.silent, "on")          // rename: moved-to
        eventually(watcher, "atomic write seen") { $0.silent }
        try "0.3\n".write(toFile: dir.file(.volume), atomically: false, encoding: .utf8)  // close-write
        eventually(watcher, "plain write seen") { $0.volume == 0.3 }
        try FileManager.default.removeItem(atPath: dir.file(.silent))  // delete: back to default
        eventually(watcher, "removal seen") { !$0.silent }
        // Handlers run just after the state is published: wait for the third call too.
        let deadline = Date().addingTimeInterval(3)
        while seen.withLock({ $0.count }) < 3 && Date() < deadline { usleep(1_000) }
        XCTAssertGreaterThanOrEqual(seen.withLock { $0.count }, 3)
    }

    func testGarbageIsIgnoredAndTheNextGoodValueApplies() throws {
        let watcher = try StateWatcher(directory: dir)
        watcher.start()
        defer { watcher.stop() }
        try ControlFiles(directory: dir).write(.silent, "on")
        eventually(watcher, "on") { $0.silent }
        try ControlFiles(directory: dir).write(.silent, "maybe")
        try ControlFiles(directory: dir).write(.volume, "0.5")   // a later good change still applies
        eventually(watcher, "volume") { $0.volume == 0.5 }
        XCTAssertTrue(watcher.state.silent, "garbage must not reset the last good value")
    }

    func testDirectoryRemovedAndRecreatedIsWatchedAgain() throws {
        let watcher = try StateWatcher(directory: dir)
        watcher.start()
        defer { watcher.stop() }
        try ControlFiles(directory: dir).write(.locked, "on")
        eventually(watcher, "locked") { $0.locked }
        try FileManager.default.removeItem(atPath: dir.path)
        usleep(50_000)
        XCTAssertTrue(watcher.state.locked, "a vanished directory keeps the settings")
        try dir.prepare()
        usleep(20_000)
        try ControlFiles(directory: dir).write(.silent, "on")
        eventually(watcher, "silent after recreation") { $0.silent && !$0.locked }
    }
}
