import SysoundCore
import XCTest

/// The designers' formats (Core Haptics' AHAP, Android's compositions), the
/// score's wire form and its rendering for each kind of motor.
final class HapticScoreTests: XCTestCase {
    // Every event type and parameter the reader takes, written by hand.
    static let everything = """
        {
          "Version": 1.0,
          "Metadata": { "Project": "sysound tests", "Created": "2026-11-28" },
          "Pattern": [
            { "Event": { "Time": 0.0, "EventType": "HapticTransient",
                         "EventParameters": [ { "ParameterID": "HapticIntensity", "ParameterValue": 0.8 },
                                              { "ParameterID": "HapticSharpness", "ParameterValue": 1.0 } ] } },
            { "Event": { "Time": 0.1, "EventType": "HapticContinuous", "EventDuration": 0.2,
                         "EventParameters": [ { "ParameterID": "HapticIntensity", "ParameterValue": 1.0 },
                                              { "ParameterID": "HapticSharpness", "ParameterValue": 0.2 } ] } },
            { "ParameterCurve": { "ParameterID": "HapticIntensityControl", "Time": 0.1,
                                  "ParameterCurveControlPoints": [ { "Time": 0.0, "ParameterValue": 0.0 },
                                                                   { "Time": 0.2, "ParameterValue": 1.0 } ] } },
            { "Parameter": { "ParameterID": "HapticIntensityControl", "Time": 0.5, "ParameterValue": 0.5 } },
            { "Event": { "Time": 0.6, "EventType": "HapticTransient" } },
            { "Event": { "Time": 0.05, "EventType": "AudioCustom", "EventWaveformPath": "tap",
                         "EventParameters": [ { "ParameterID": "AudioVolume", "ParameterValue": 0.5 } ] } },
            { "Event": { "Time": 0.3, "EventType": "AudioCustom", "EventWaveformPath": "sounds/ding.wav" } },
            { "Event": { "Time": 0.0, "EventType": "AudioContinuous", "EventDuration": 1.0 } },
            { "ParameterCurve": { "ParameterID": "HapticSharpnessControl", "Time": 0.0,
                                  "ParameterCurveControlPoints": [ { "Time": 0.0, "ParameterValue": 0.0 } ] } },
            { "Event": { "Time": 0.7, "EventType": "HapticTransient", "FutureKey": [1, 2],
                         "EventParameters": [ { "ParameterID": "HapticIntensity", "ParameterValue": 7 } ] } }
          ]
        }
        """

    func testEveryEventAndParameterTypeIsRead() throws {
        var reader = AHAPReader(baseDirectory: "/themes/x")
        let score = try reader.read(Self.everything)
        XCTAssertEqual(score.events.count, 4)
        XCTAssertEqual(score.events[0], .transient(atMs: 0, intensity: 0.8, sharpness: 1))
        guard case .continuous(let t, let d, let i, let s, let curve) = score.events[1] else { return XCTFail("\(score.events[1])") }
        XCTAssertEqual([t, d], [100, 200])
        XCTAssertEqual(i, 1)
        XCTAssertEqual(s, 0.2)
        // The intensity control's curve, from 0 at 100 ms to 1 at 300 ms.
        XCTAssertEqual(curve.level(atMs: 100), 0, accuracy: 1e-9)
        XCTAssertEqual(curve.level(atMs: 200), 0.5, accuracy: 1e-9)
        XCTAssertEqual(curve.level(atMs: 300), 1, accuracy: 1e-9)
        // The dynamic parameter at 500 ms halves what follows; defaults are intensity 1, sharpness 0.5.
        XCTAssertEqual(score.events[2], .transient(atMs: 600, intensity: 0.5, sharpness: 0.5))
        // Out of range: clamped, as Core Haptics clamps, and noted.
        XCTAssertEqual(score.events[3], .transient(atMs: 700, intensity: 0.5, sharpness: 0.5))
        XCTAssertEqual(score.sounds, [
            HapticScore.Sound(atMs: 50, name: "tap", volume: 0.5),
            HapticScore.Sound(atMs: 300, name: "/themes/x/sounds/ding.wav"),
        ])
        XCTAssertEqual(reader.notes.count, 3, "\(reader.notes)")
        let notes = reader.notes.map(\.description)
        XCTAssertTrue(notes.contains { $0.contains("AudioContinuous") })
        XCTAssertTrue(notes.contains { $0.contains("HapticSharpnessControl") })
        XCTAssertTrue(notes.contains { $0.hasPrefix("line 23, Pattern[9].Event.EventParameters[0].ParameterValue: 7 clamped") }, "\(notes)")
    }

    func testAValueNoIntHoldsIsClampedAndNamedNotTrapped() throws {
        var reader = AHAPReader()
        let score = try reader.read(#"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1e300}]}}]}"#)
        XCTAssertEqual(score.events, [.transient(atMs: 0, intensity: 1, sharpness: 0.5)])
        XCTAssertEqual(reader.notes.map(\.description), ["line 1, Pattern[0].Event.EventParameters[0].ParameterValue: 1e+300 clamped to 0–1"])
    }

    func testMalformedFilesNameTheKeyAndTheLine() {
        func error(_ text: String) -> String {
            var reader = AHAPReader()
            do {
                _ = try reader.read(text)
                return "no error"
            } catch {
                return error.description
            }
        }
        XCTAssertEqual(error("{\n  \"Pattern\": [\n    {\"Event\": {\"Time\": \"soon\", \"EventType\": \"HapticTransient\"}}\n  ]\n}"),
                       "line 3, Pattern[0].Event.Time: a string; expected a number")
        XCTAssertEqual(error("{\n\"Pattern\": [\n{\"Event\": {\"Time\": 0}}]}"), "line 3, Pattern[0].Event.EventType: missing")
        XCTAssertEqual(error("{\"Pattern\": [{\"Event\": {\"Time\": 0, \"EventType\": \"HapticContinuous\"}}]}"),
                       "line 1, Pattern[0].Event.EventDuration: missing")
        XCTAssertEqual(error("{\"Pattern\": [{\"Event\": {\"Time\": 0, \"EventType\": \"Buzz\"}}]}"),
                       "line 1, Pattern[0].Event.EventType: unknown event type \"Buzz\"; expected HapticTransient, HapticContinuous, AudioCustom or AudioContinuous")
        XCTAssertEqual(error("{\"Version\": 1}"), "line 1, Pattern: no \"Pattern\"; an AHAP file lists its events in \"Pattern\": [...]")
        XCTAssertTrue(error("{\n\n\"Pattern\": [1, }").hasPrefix("line 3: not valid JSON"), error("{\n\n\"Pattern\": [1, }"))
        XCTAssertTrue(error("[]").contains("expected an AHAP object"))
        // Found by the fuzzer: a sound named with the text form's separators did not read back.
        for name in ["s;unds/ding.wav", "ding*0.5", "tab\\there"] {
            XCTAssertTrue(
                error("{\"Pattern\": [{\"Event\": {\"Time\": 0, \"EventType\": \"AudioCustom\", \"EventWaveformPath\": \"\(name)\"}}]}")
                    .hasPrefix("line 1, Pattern[0].Event.EventWaveformPath: "), name)
        }
        XCTAssertTrue(error("{\"Pattern\": [{\"Event\": {\"Time\": 40, \"EventType\": \"HapticTransient\"}}]}").contains("at most 30000 ms"))
        XCTAssertEqual(
            error("{\"Pattern\": [{\"ParameterCurve\": {\"ParameterID\": \"HapticIntensityControl\", \"ParameterCurveControlPoints\": 3}}]}"),
            "line 1, Pattern[0].ParameterCurve.ParameterCurveControlPoints: a number; expected an array of {Time, ParameterValue}")
    }

    func testJSONReaderKeepsLinesAndRefusesWhatIsNotJSON() throws {
        let json = try PositionedJSON(parsing: "{\n \"a\": [1,\n  \"x\\u00e9\\n\"],\n \"b\": {\"c\": null}\n}")
        XCTAssertEqual(json["a"]?.line, 2)
        guard case .array(let items, _)? = json["a"] else { return XCTFail() }
        XCTAssertEqual(items[1], .string("xé\n", line: 3))
        XCTAssertEqual(json["b"]?["c"], .null(line: 4))
        for bad in ["", "{", "[1,]", "{\"a\" 1}", "tru", "\"a\nb\"", "01x", "{} {}", "\"\\q\""] {
            XCTAssertThrowsError(try PositionedJSON(parsing: bad), bad)
        }
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        XCTAssertThrowsError(try PositionedJSON(parsing: deep)) { XCTAssertTrue("\($0)".contains("nested deeper")) }
    }

    func testCompositionSyntaxAndItsTimeline() throws {
        let c = try HapticComposition(parsing: "click, tick:0.5@40 ,quick-rise")
        XCTAssertEqual(c.pieces, [.init(.click), .init(.tick, scale: 0.5, delayMs: 40), .init(.quickRise)])
        XCTAssertEqual(c.description, "click,tick:0.5@40,quick-rise")
        // Each primitive starts its delay after the previous one's end.
        XCTAssertEqual(c.score.events.map(\.startMs), [0, 60, 80])
        for primitive in HapticPrimitive.allCases {
            XCTAssertFalse(try HapticComposition(parsing: primitive.rawValue).score.events.isEmpty, primitive.rawValue)
        }
        XCTAssertEqual(HapticPrimitive.allCases.count, 8)
        func error(_ text: String) -> String {
            do { return "\(try HapticComposition(parsing: text))" } catch { return error.description }
        }
        XCTAssertTrue(error("click,pop").hasPrefix("primitive 2 \"pop\" is not one of click, tick, low-tick"), error("click,pop"))
        XCTAssertTrue(error("tick:2").contains("scale outside 0–1"))
        XCTAssertTrue(error("tick@-5").contains("delay of 0 to"))
        XCTAssertTrue(error("").hasPrefix("empty composition"))
        XCTAssertTrue(error(Array(repeating: "slow-rise@9000", count: 4).joined(separator: ",")).contains("at most 30000 ms"))
    }

    func testTheScoresTextFormRoundTripsAndRefusesNonsense() throws {
        var reader = AHAPReader(baseDirectory: "/t")
        let score = try reader.read(Self.everything)
        XCTAssertEqual(try HapticScore(parsing: score.description), score)
        for bad in ["", "x@0:1/1", "t@0:2/1", "t@-1:1/1", "c@0+0:1/1", "c@0+10:1/1~5:2", "s@0:", "t@0:1", "c@0+10:1/1~9:0~3:1"] {
            XCTAssertThrowsError(try HapticScore(parsing: bad), bad)
        }
    }

    // MARK: Rendering

    let lra = MotorAbility(amplitudeControl: true, motor: .lra, minimumPulseMs: 0)
    let erm = MotorAbility(amplitudeControl: true, motor: .erm, minimumPulseMs: 40)
    let onOff = MotorAbility.of(deviceName: "gpio-vibrator", profile: nil)

    func testSharpnessIsAShorterTapOnlyWhereTheMotorFollowsIt() {
        let sharp = HapticScore(events: [.transient(atMs: 0, intensity: 1, sharpness: 1)])
        let dull = HapticScore(events: [.transient(atMs: 0, intensity: 1, sharpness: 0)])
        XCTAssertEqual(sharp.rendered(for: lra).steps, [HapticStep(magnitude: 1, durationMs: 10)])
        XCTAssertEqual(dull.rendered(for: lra).steps, [HapticStep(magnitude: 1, durationMs: 20)])
        // An eccentric-mass motor plays its minimum pulse either way.
        XCTAssertEqual(sharp.rendered(for: erm), dull.rendered(for: erm))
        XCTAssertEqual(sharp.rendered(for: erm).steps, [HapticStep(magnitude: 1, durationMs: 40)])
    }

    func testAmplitudeMotorsPlayLevelsAndCurvesAsStaircases() {
        let ramp = HapticScore(events: [.continuous(
            atMs: 10, durationMs: 100, intensity: 1, sharpness: 0.5,
            curve: IntensityCurve(points: [.init(atMs: 10, level: 0), .init(atMs: 110, level: 1)]))])
        let steps = ramp.rendered(for: lra).steps
        XCTAssertEqual(steps.first, HapticStep(magnitude: 0, durationMs: 10))
        XCTAssertEqual(steps.dropFirst().map(\.durationMs), Array(repeating: 10, count: 10))
        XCTAssertEqual(steps.dropFirst().map(\.magnitude), [0.05, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 0.95])
        XCTAssertEqual(ramp.rendered(for: lra).durationMs, 110)
        // Overlapping events add up and clip at full.
        let overlap = HapticScore(events: [
            .transient(atMs: 0, intensity: 0.7, sharpness: 0),
            .continuous(atMs: 0, durationMs: 40, intensity: 0.5, sharpness: 0, curve: IntensityCurve()),
        ])
        XCTAssertEqual(overlap.rendered(for: lra).steps, [HapticStep(magnitude: 1, durationMs: 20), HapticStep(magnitude: 0.5, durationMs: 20)])
    }

    func testOnOffMotorsPlayStrengthAsOnTimeNeverBelowTheMinimumPulse() {
        XCTAssertFalse(onOff.amplitudeControl)
        XCTAssertEqual(onOff.minimumPulseMs, 40)
        // A faint tap is still a felt pulse.
        let faint = HapticScore(events: [.transient(atMs: 0, intensity: 0.2, sharpness: 1)])
        XCTAssertEqual(faint.rendered(for: onOff).steps, [HapticStep(magnitude: 1, durationMs: 40)])
        // Half strength for 400 ms: windows of 80 ms, each on for 40.
        let half = HapticScore(events: [.continuous(atMs: 0, durationMs: 400, intensity: 0.5, sharpness: 0, curve: IntensityCurve())])
        let steps = half.rendered(for: onOff).steps
        XCTAssertTrue(steps.allSatisfy { $0.magnitude == 0 || $0.magnitude == 1 })
        XCTAssertEqual(steps.filter { $0.magnitude == 1 }.map(\.durationMs), [40, 40, 40, 40, 40])
        XCTAssertEqual(steps.filter { $0.magnitude == 0 }.map(\.durationMs), [40, 40, 40, 40])
        // Full strength stays on throughout.
        let full = HapticScore(events: [.continuous(atMs: 0, durationMs: 400, intensity: 1, sharpness: 0, curve: IntensityCurve())])
        XCTAssertEqual(full.rendered(for: onOff).steps, [HapticStep(magnitude: 1, durationMs: 400)])
    }

    func testAndroidMomentsAreComposedPresetsRenderedForTheMotor() throws {
        let names = Set(HapticPresets.names)
        for moment in ["confirm", "reject", "gesture-start", "gesture-end", "toggle-on", "toggle-off", "keyboard-press",
                       "keyboard-release", "long-press", "clock-tick", "segment-tick", "segment-frequent-tick", "context-click", "drag-start"] {
            XCTAssertTrue(names.contains(moment), moment)
        }
        XCTAssertEqual(BuiltInHaptic.reject.pattern.steps.filter { $0.magnitude > 0 }.count, 2, "a double click")
        let composed = HapticPresets.composed(HapticPresets.defaults)
        XCTAssertEqual(composed["confirm"]?.rendered(for: onOff).steps, [HapticStep(magnitude: 1, durationMs: 40)])
        // iOS-named presets are step patterns, left alone; a configured moment stays the user's.
        XCTAssertNil(composed["success"])
        var configured = HapticPresets.defaults
        configured["confirm"] = HapticPattern(steps: [HapticStep(magnitude: 0.3, durationMs: 99)])
        XCTAssertNil(HapticPresets.composed(configured)["confirm"])
        XCTAssertNotNil(HapticPresets.composed(configured)["reject"])
    }
}
