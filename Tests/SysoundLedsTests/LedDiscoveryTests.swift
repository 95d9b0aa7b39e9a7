import SysoundLeds
import XCTest

final class LedDiscoveryTests: XCTestCase {
    func testFindsLedsAsFeedbackdDoes() throws {
        let sys = try FakeSysfs()
        try sys.addLed("rgb:status", multiIndex: "red green blue")       // multicolor, by name
        try sys.addLed("white:flash", max: 15)                           // the flash, by name
        try sys.addLed("input3::capslock", max: 1)                       // tagged by udev
        try sys.udev("input3::capslock", ["FEEDBACKD_TYPE": "led", "FEEDBACKD_LED_COLOR": "green"])
        try sys.addLed("input3::numlock", max: 1)                        // neither: not an LED of feedbackd's
        try sys.addLed("white:indicator", pattern: false)                // no pattern trigger selected
        try sys.addLed("amber:status", pattern: false, triggers: "none timer")  // no ledtrig-pattern
        let found = LedDiscovery(files: SystemLedFiles(), paths: sys.paths).scan()

        XCTAssertEqual(found.lights.map(\.name), ["rgb:status", "input3::capslock", "white:flash"], "most capable first")
        XCTAssertEqual(found.lights.map(\.kind), [.multicolor, .single, .single])
        XCTAssertEqual(found.lights.map(\.role), [.status, .status, .flash])
        XCTAssertEqual(found.lights[0].colors, ["red", "green", "blue"])
        XCTAssertEqual(found.lights[1].colors, ["green"], "udev's FEEDBACKD_LED_COLOR")
        XCTAssertEqual(found.lights[1].why, "udev FEEDBACKD_TYPE=led")
        XCTAssertEqual(found.lights[2].colors, ["white"], "the colour part of its name")
        XCTAssertEqual(found.lights[2].channels[0].maxBrightness, 15)
        XCTAssertFalse(found.lights.contains { $0.name == "input3::numlock" })
        XCTAssertEqual(Set(found.missingTrigger), ["white:indicator", "amber:status"])
        XCTAssertTrue(found.skipped.first { $0.name == "amber:status" }!.why.contains("load ledtrig-pattern"))
        XCTAssertTrue(found.skipped.first { $0.name == "white:indicator" }!.why.contains("sysound-ledctrl"))
    }

    func testThreeSingleColourLedsAreOneRgbLight() throws {
        let sys = try FakeSysfs()
        // The N900's lp5523 channels, coloured by udev (feedbackd's rules).
        for (name, color) in [("lp5523:r", "red"), ("lp5523:g", "green"), ("lp5523:b", "blue")] {
            try sys.addLed(name)
            try sys.udev(name, ["FEEDBACKD_TYPE": "led", "FEEDBACKD_LED_COLOR": color])
        }
        let found = LedDiscovery(files: SystemLedFiles(), paths: sys.paths).scan()
        XCTAssertEqual(found.lights.count, 1)
        XCTAssertEqual(found.lights[0].kind, .rgb)
        XCTAssertEqual(found.lights[0].name, "lp5523")
        XCTAssertEqual(found.lights[0].ledNames, ["lp5523:r", "lp5523:g", "lp5523:b"])
        XCTAssertEqual(found.lights[0].colors, ["red", "green", "blue"])
    }

    func testTheConfigurationChoosesAndExcludes() throws {
        let sys = try FakeSysfs()
        try sys.addLed("white:status")
        try sys.addLed("input2::scrolllock", max: 1)
        try sys.addLed("red:indicator")
        var found = LedDiscovery(files: SystemLedFiles(), paths: sys.paths, choice: LedChoice(exclude: ["*:indicator"])).scan()
        XCTAssertEqual(found.lights.map(\.name), ["white:status"])
        XCTAssertEqual(found.skipped, [SkippedLed(name: "red:indicator", why: "excluded by [leds] exclude")])
        found = LedDiscovery(files: SystemLedFiles(), paths: sys.paths, choice: LedChoice(devices: ["input*::scrolllock"])).scan()
        XCTAssertEqual(found.lights.map(\.name), ["input2::scrolllock"], "listed devices replace feedbackd's choice")
        XCTAssertEqual(found.lights[0].why, "chosen in [leds] devices")
    }

    func testNoLedClassIsNoLights() {
        let found = LedDiscovery(files: SystemLedFiles(), paths: LedPaths(root: "/nonexistent-\(getpid())")).scan()
        XCTAssertEqual(found.lights, [])
    }
}
