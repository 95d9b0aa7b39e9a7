import Logging
import SysoundLeds
import SysoundPlatform
import XCTest

/// The engine on a fake sysfs tree: what it writes to each attribute.
final class LedEngineTests: XCTestCase {
    static let host = try! LoopHost.ownThread(name: "test-leds")

    private func engine(_ sys: FakeSysfs) -> LedEngine {
        let engine = LedEngine(discovery: LedDiscovery(files: SystemLedFiles(), paths: sys.paths), host: Self.host)
        engine.start()
        // Before the tree goes: the engine's watch is on it.
        addTeardownBlock { engine.shutdown(); sys.remove() }
        return engine
    }

    private func message(_ color: LedColor, _ mHz: Int, priority: Int, percent: Int = 100) -> LedRequest {
        LedRequest(color: color, frequencyMilliHz: mHz, priority: priority, maxBrightnessPercent: percent, owner: "test")
    }

    func testColourIsMappedToAMulticolorLed() throws {
        let sys = try FakeSysfs()
        try sys.addLed("rgb:status", max: 100, multiIndex: "red green blue")
        let leds = engine(sys)
        let id = try XCTUnwrap(leds.show(message(LedColor(parsing: "#00FFFF")!, 3000, priority: 1, percent: 50)))
        XCTAssertEqual(sys.read("rgb:status", "multi_intensity"), "0 100 100\n")
        XCTAssertEqual(sys.read("rgb:status", "pattern"), "50 166 50 0 0 166 0 0\n", "max-brightness 50 % of 100")
        XCTAssertEqual(sys.read("rgb:status", "repeat"), "-1\n")
        XCTAssertEqual(leds.report.first?.shows, "#00ffff blinking 3000 mHz, priority 1 (test)")
        leds.end(id)
        XCTAssertEqual(sys.read("rgb:status", "pattern"), "0 1 0 0\n", "off once nothing holds it")
        XCTAssertEqual(sys.read("rgb:status", "repeat"), "1\n")
        XCTAssertEqual(leds.report.first?.shows, "off")
    }

    func testEachChannelOfAnRgbLightGetsItsShare() throws {
        let sys = try FakeSysfs()
        for (name, color) in [("lp5523:r", "red"), ("lp5523:g", "green"), ("lp5523:b", "blue")] {
            try sys.addLed(name)
            try sys.udev(name, ["FEEDBACKD_TYPE": "led", "FEEDBACKD_LED_COLOR": color])
        }
        let leds = engine(sys)
        _ = try XCTUnwrap(leds.show(message(.blue, 0, priority: 1)))
        XCTAssertEqual(sys.read("lp5523:b", "pattern"), "255 1 255 0\n", "steady")
        XCTAssertEqual(sys.read("lp5523:r", "pattern"), "0 1 0 0\n")
        XCTAssertEqual(sys.read("lp5523:g", "pattern"), "0 1 0 0\n")
    }

    func testTheHighestPriorityShowsAndTheNextWhenItEnds() throws {
        let sys = try FakeSysfs()
        try sys.addLed("white:status", max: 1)
        let leds = engine(sys)
        let low = try XCTUnwrap(leds.show(message(.white, 1000, priority: 1)))
        XCTAssertEqual(sys.read("white:status", "pattern"), "1 500 1 0 0 500 0 0\n")
        let high = try XCTUnwrap(leds.show(message(.red, 5000, priority: 5)))
        XCTAssertEqual(sys.read("white:status", "pattern"), "1 100 1 0 0 100 0 0\n")
        let lower = try XCTUnwrap(leds.show(message(.green, 0, priority: 0)))
        XCTAssertEqual(sys.read("white:status", "pattern"), "1 100 1 0 0 100 0 0\n", "a lower priority waits")
        leds.end(high)
        XCTAssertEqual(sys.read("white:status", "pattern"), "1 500 1 0 0 500 0 0\n")
        leds.end(low)
        XCTAssertEqual(sys.read("white:status", "pattern"), "1 1 1 0\n")
        leds.end(lower)
        XCTAssertEqual(sys.read("white:status", "pattern"), "0 1 0 0\n")
    }

    func testTheFlashForAlertsPrefersTheFlashLedAndEndsByItself() throws {
        let sys = try FakeSysfs()
        try sys.addLed("white:status", max: 1)
        try sys.addLed("white:flash", max: 10)
        let leds = engine(sys)
        _ = try XCTUnwrap(leds.show(message(.blue, 1000, priority: 1)))
        _ = try XCTUnwrap(leds.show(LedRequest(color: .white, frequencyMilliHz: 10_000, priority: 9, purpose: .alertFlash, cycles: 3, owner: "flash")))
        XCTAssertEqual(sys.read("white:flash", "pattern"), "10 50 10 0 0 50 0 0\n")
        XCTAssertEqual(sys.read("white:flash", "repeat"), "3\n")
        XCTAssertEqual(sys.read("white:status", "pattern"), "1 500 1 0 0 500 0 0\n", "the notification stays on the status LED")
        // The burst's 300 ms end: its request is dropped (the kernel already ended the blinking).
        let gone = expectation(description: "burst ended")
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.6) {
            if leds.report.first(where: { $0.light?.name == "white:flash" })?.shows == "off" { gone.fulfill() }
        }
        wait(for: [gone], timeout: 2)
    }

    func testPreferFlashMovesNotificationsToTheFlash() throws {
        let sys = try FakeSysfs()
        try sys.addLed("white:status", max: 1)
        try sys.addLed("white:flash", max: 10)
        let leds = engine(sys)
        _ = try XCTUnwrap(leds.show(message(.white, 0, priority: 1)))
        XCTAssertEqual(sys.read("white:status", "pattern"), "1 1 1 0\n")
        leds.setPreferFlash(true)
        XCTAssertEqual(sys.read("white:flash", "pattern"), "10 1 10 0\n")
        XCTAssertEqual(sys.read("white:status", "pattern"), "0 1 0 0\n")
    }

    func testNoLightIsNoShow() throws {
        let sys = try FakeSysfs()
        let leds = engine(sys)
        XCTAssertNil(leds.show(message(.white, 0, priority: 1)))
    }

    /// udevd writes `+leds:NAME` when an LED appears: the engine looks again
    /// and shows what is held on the new light.
    func testAnLedThatAppearsLaterIsUsed() throws {
        let sys = try FakeSysfs()
        let leds = engine(sys)
        XCTAssertTrue(leds.lights.isEmpty)
        try sys.addLed("input7::capslock", max: 1)
        try sys.udev("input7::capslock", ["FEEDBACKD_TYPE": "led"])
        let deadline = Date() + 2
        while leds.lights.isEmpty && Date() < deadline { usleep(10_000) }
        XCTAssertEqual(leds.lights.map(\.name), ["input7::capslock"])
        _ = try XCTUnwrap(leds.show(message(.white, 0, priority: 1)))
        try sys.remove("input7::capslock")
        while !leds.lights.isEmpty && Date() < deadline + 2 { usleep(10_000) }
        XCTAssertTrue(leds.lights.isEmpty, "gone with its udev record")
    }

    /// A refused write (permissions) is reported on the light, not thrown.
    func testARefusedWriteIsReportedNotFatal() throws {
        let sys = try FakeSysfs()
        try sys.addLed("white:status", max: 1)
        try FileManager.default.removeItem(atPath: sys.paths.attribute("white:status", "repeat"))
        try FileManager.default.createDirectory(atPath: sys.paths.attribute("white:status", "repeat"), withIntermediateDirectories: false)
        let leds = engine(sys)
        _ = leds.show(message(.white, 0, priority: 1))
        XCTAssertNotNil(leds.report.first?.problem)
    }
}
