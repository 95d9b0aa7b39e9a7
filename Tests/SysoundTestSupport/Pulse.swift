import Foundation
// Only for XCTSkip. Guarded so that a plain `swift build`, which builds this
// target too, does not need XCTest (the test targets that use it do).
#if canImport(XCTest)
import XCTest
#endif

/// The private PulseAudio server of Tests/fixture/with-pulse.sh: a 48 kHz
/// null sink whose monitor is recorded to `SYSOUND_MONITOR_FILE`, and
/// `SYSOUND_PULSE_CTL` to stop and restart the server.
package enum Pulse {
    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// Which server speaks the PulseAudio protocol at PULSE_SERVER:
    /// `SYSOUND_SOUND_SERVER` of with-pulse.sh / with-pipewire.sh.
    package enum Server: String { case pulseaudio, pipewire }
    package static var server: Server { environment["SYSOUND_SOUND_SERVER"].flatMap(Server.init) ?? .pulseaudio }

    /// The smallest request and quantum the server grants sysound's client,
    /// in frames: on PipeWire what the shipped drop-in sets
    /// (config/pipewire-pulse.conf.d/50-sysound.conf, which with-pipewire.sh
    /// installs), on PulseAudio no floor.
    package static var requestFloorFrames: Int { server == .pipewire ? 128 : 0 }

    /// How much later than a warm play (`warmOnset`, ms) the first sound
    /// after an idle pause may reach the sink: a resume that waits for the
    /// server (a round trip, a poll) is later than this. On PipeWire a
    /// resumed stream also waits for its node's next graph cycle (up to a
    /// 1024-frame default quantum, 21.3 ms) and, when the pause flushed it
    /// (OpenAL Soft's own stream), for its buffer to fill again before the
    /// server starts it, which is about what the warm onset measures: seen
    /// 52 → 74 ms in CI and 44 → 81 ms on a quiet machine. The figure
    /// itself is the bench's (figure 2).
    package static func resumeAllowanceMilliseconds(warmOnset: Double) -> Double {
        server == .pipewire ? max(45, warmOnset) : 20
    }

    /// How many reopens a device loss may take once the server is back. On
    /// PipeWire the server answers before any sink exists and offers a
    /// placeholder (wireplumber's auto_null, "Dummy Output") meanwhile: an engine reopening in that
    /// window lands there. When the real sink appears, OpenAL Soft's stream
    /// (which may not move) is ended, so the engine reopens once more;
    /// sysound's own stream (`playsOnOwnStream`) is moved there and plays on
    /// (IdlePauseTests.testASinkAppearingAfterTheServerReturnedIsWhereItPlays).
    package static func reopensAfterReturn(ownStream: Bool) -> ClosedRange<Int> {
        server == .pipewire && !ownStream ? 1...2 : 1...1
    }

    /// Skips the test when there is no fixture, unless SYSOUND_REQUIRE_PULSE=1
    /// (CI), where that is a failure. Returns the monitor recording's path.
    @discardableResult
    package static func require() throws -> String {
        let env = environment
        guard let monitor = env["SYSOUND_MONITOR_FILE"], env["PULSE_SERVER"] != nil else {
            if env["SYSOUND_REQUIRE_PULSE"] == "1" {
                throw FixtureError("SYSOUND_REQUIRE_PULSE=1 but no PulseAudio fixture: run under Tests/fixture/with-pulse.sh")
            }
            #if canImport(XCTest)
            throw XCTSkip("no PulseAudio fixture; run under Tests/fixture/with-pulse.sh")
            #else
            throw FixtureError("no PulseAudio fixture; run under Tests/fixture/with-pulse.sh")
            #endif
        }
        return monitor
    }

    /// `$SYSOUND_PULSE_CTL stop|start`: the server goes away / comes back at
    /// the same address. Its output is appended to the fixture's ctl.log, not
    /// captured: the server and the recorder it starts in the background
    /// outlive it. A failure carries what the script said this time (the
    /// servers' logs among it), so a CI log shows why.
    package static func control(_ verb: String) throws {
        guard let ctl = environment["SYSOUND_PULSE_CTL"], let dir = environment["SYSOUND_FIXTURE_DIR"] else {
            throw FixtureError("SYSOUND_PULSE_CTL or SYSOUND_FIXTURE_DIR is not set")
        }
        let log = dir + "/ctl.log"
        let start = (try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0  // no log yet: from 0
        let status = try Spawned(ctl, [verb], output: .append(to: log)).wait()
        let said = String(decoding: (FileManager.default.contents(atPath: log) ?? Data()).dropFirst(start).suffix(4000), as: UTF8.self)
        guard status == 0 else { throw FixtureError("pulse-ctl \(verb) failed (exit status \(status)); it said:\n\(said)") }
        if !said.isEmpty { print("pulse-ctl \(verb) said: \(said)") }
    }

    /// A playback stream as PipeWire's `pw-dump` shows its node.
    package struct PipeWireStream {
        /// "running", "idle" (corked: out of the graph), "suspended"…
        package var state: String
        package var props: [String: Any]
    }

    /// On PipeWire: the playback stream of process `pid` (its client's
    /// application.process.id), or nil when it has none.
    package static func pipewireStream(of pid: pid_t = getpid()) throws -> PipeWireStream? {
        let result = try Spawned.run("/usr/bin/pw-dump", [])
        guard result.status == 0 else { throw FixtureError("pw-dump failed (\(result.status)): \(result.stderr)") }
        let objects = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
        for object in objects {
            guard let info = object["info"] as? [String: Any], let props = info["props"] as? [String: Any],
                  props["media.class"] as? String == "Stream/Output/Audio",
                  props["application.process.id"].map({ "\($0)" }) == "\(pid)" else { continue }  // a number or a string
            return PipeWireStream(state: info["state"] as? String ?? "?", props: props)
        }
        return nil
    }

    /// The loudest left-channel sample the sink's monitor recorded while
    /// `action` ran and `seconds` after it returned.
    package static func peak(_ seconds: Double, during action: () throws -> Void = {}) throws -> Float {
        let recording = try MonitorRecording()
        try action()
        return Signal.peak(try recording.samples(secondsFromNow: seconds))
    }
}

/// A mark in the monitor recording (raw float32 stereo at 48 kHz, appended
/// continuously): make a sound after `init()`, then `samples(atLeast:)`
/// returns the left channel recorded since the mark.
package struct MonitorRecording {
    package static let sampleRate = 48_000.0
    package static let channels = 2

    package let url: URL
    package let startOffset: UInt64
    /// When the mark was made (CLOCK_MONOTONIC ns).
    let markedAt: UInt64

    /// Marks the current end of the recording; skips or fails as `Pulse.require()`.
    package init() throws {
        url = URL(fileURLWithPath: try Pulse.require())
        startOffset = try Self.size(of: url)
        markedAt = DispatchTime.now().uptimeNanoseconds
    }

    /// How many frames the recorder has delivered since the mark: where in
    /// the recording "now" is, as far as the recorder (which may lag) knows.
    package func framesSoFar() throws -> Int {
        Int((try Self.size(of: url) - startOffset) / UInt64(MemoryLayout<Float>.size * Self.channels))
    }

    static func size(of url: URL) throws -> UInt64 {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.uint64Value ?? 0
    }

    /// The left channel recorded since the mark until `seconds` from now:
    /// for a sound that something slow started (a CLI launched on a loaded
    /// machine, a daemon activated by the request), whose wait must not eat
    /// the window the sound has to arrive in.
    package func samples(secondsFromNow seconds: Double) throws -> [Float] {
        try stereo(secondsFromNow: seconds).left
    }

    /// Both channels recorded since the mark until `seconds` from now, frame
    /// for frame (a control stream plays on the right: `ControlTone`).
    package func stereo(secondsFromNow seconds: Double) throws -> (left: [Float], right: [Float]) {
        let since = Double(DispatchTime.now().uptimeNanoseconds - markedAt) / 1e9
        return try stereo(atLeast: since + seconds, timeout: since + seconds + 10)
    }

    /// The left channel recorded since the mark once it holds a sound of
    /// `frames` frames whole: its first sample above `threshold`, then its
    /// length and 10 ms more; or what arrived within `timeout` seconds. Where
    /// the sound lies after the mark is no latency a test can judge: the
    /// CLI may start late on a busy machine, and the recorder (parec, at
    /// normal priority) lags the sink by as much as it was starved when the
    /// mark was taken (a tap recorded whole 309 ms after the mark, `play`
    /// took 44 ms). How soon a sound plays is the bench's figure.
    package func samples(holdingSoundOf frames: Int, threshold: Float, within timeout: Double) throws -> [Float] {
        var seconds = 0.3
        while true {
            let x = try samples(atLeast: seconds, timeout: timeout + 10)
            if let onset = Signal.onset(x, threshold: threshold), onset + frames + Int(Self.sampleRate / 100) <= x.count { return x }
            if seconds >= timeout { return x }
            seconds = min(timeout, seconds + 0.1)
        }
    }

    /// The left channel recorded since the mark, waiting until at least
    /// `seconds` of audio have arrived (the recorder delivers in small blocks).
    package func samples(atLeast seconds: Double, timeout: Double = 10) throws -> [Float] {
        try stereo(atLeast: seconds, timeout: timeout).left
    }

    /// Both channels recorded since the mark, once at least `seconds` of audio have arrived.
    package func stereo(atLeast seconds: Double, timeout: Double = 10) throws -> (left: [Float], right: [Float]) {
        let frameBytes = UInt64(MemoryLayout<Float>.size * Self.channels)
        let wanted = UInt64(seconds * Self.sampleRate) * frameBytes
        let deadline = Date().addingTimeInterval(timeout)
        while try Self.size(of: url) - startOffset < wanted {
            guard Date() < deadline else { throw FixtureError("the monitor recorder delivered too little audio within \(timeout) s") }
            usleep(5_000)
        }
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        try handle.seek(toOffset: startOffset)
        let data = handle.readData(ofLength: Int(wanted))
        let frames = data.count / Int(frameBytes)
        return data.withUnsafeBytes { raw in
            let floats = raw.bindMemory(to: Float.self)
            return ((0..<frames).map { floats[$0 * Self.channels] }, (0..<frames).map { floats[$0 * Self.channels + 1] })
        }
    }
}
