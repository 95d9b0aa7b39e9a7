import COpenAL
import Foundation
@testable import SysoundAudio
import SysoundTestSupport
import XCTest

/// The foundation's proof that the sound path is real: a tone played through
/// OpenAL Soft's PulseAudio backend arrives at the null sink with the right
/// frequency and level, and nothing arrives when nothing is played.
final class PulseToneTests: XCTestCase {
    let frequency = 1_000.0
    let amplitude: Float = 0.5

    func testToneReachesTheSinkWithItsFrequencyAndLevel() throws {
        let recording = try MonitorRecording()
        try withOpenAL { source in
            let tone = (0..<Int(0.3 * 48_000)).map { i in
                amplitude * Float(sin(2 * Double.pi * frequency * Double(i) / 48_000))
            }
            var buffer: ALuint = 0
            alGenBuffers(1, &buffer)
            defer { alDeleteBuffers(1, &buffer) }
            // Stereo through AL_SOFT_direct_channels: no panning law between
            // the buffer and the sink, so the level at the sink is the level sent.
            let pcm16 = tone.flatMap { v in [Int16((v * 32_767).rounded()), Int16((v * 32_767).rounded())] }
            pcm16.withUnsafeBytes { alBufferData(buffer, AL_FORMAT_STEREO16, $0.baseAddress, ALsizei($0.count), 48_000) }
            alSourcei(source, AL_DIRECT_CHANNELS_SOFT, AL_TRUE)
            alSourcei(source, AL_BUFFER, ALint(buffer))
            alSourcePlay(source)
            XCTAssertEqual(alGetError(), AL_NO_ERROR)
            let samples = try recording.samples(atLeast: 0.8)
            alSourceStop(source)
            alSourcei(source, AL_BUFFER, 0)

            let start = try XCTUnwrap(Signal.onset(samples, threshold: 0.05), "the tone never reached the sink")
            let body = samples[(start + 2_400)..<(start + 2_400 + 9_600)]  // 200 ms inside the tone
            let atTone = Signal.amplitude(of: frequency, in: body)
            let offTone = Signal.amplitude(of: frequency * 1.5, in: body)
            let expected = Double(amplitude)
            XCTAssertEqual(atTone, expected, accuracy: expected * 0.05, "level of the 1 kHz tone at the sink")
            XCTAssertLessThan(offTone, atTone * 0.01, "the recording is a pure 1 kHz tone")
        }
    }

    func testNothingPlayedRecordsNothingAboveTheNoiseFloor() throws {
        let recording = try MonitorRecording()
        try withOpenAL { _ in
            let samples = try recording.samples(atLeast: 0.5)
            XCTAssertLessThan(Signal.peak(samples), 1e-4, "the sink received sound although none was played")
        }
    }

    /// Opens the default OpenAL device (the fixture pins ALSOFT_DRIVERS=pulse)
    /// with a short mixing period and gives the body one source.
    private func withOpenAL(_ body: (ALuint) throws -> Void) throws {
        // OpenAL Soft reads its config once per process, at the first ALC
        // call: this test runs first, and the device tests after it must get
        // the engine's mixing period, not OpenAL's default of 1024 × 3
        // (prepared while the test process has one thread).
        AudioProcess.prepare(.defaults)
        guard let device = alcOpenDevice(nil) else {
            throw FixtureError("alcOpenDevice(nil) failed: OpenAL Soft found no PulseAudio server at \(ProcessInfo.processInfo.environment["PULSE_SERVER"] ?? "?")")
        }
        defer { alcCloseDevice(device) }
        var attributes: [ALCint] = [ALC_FREQUENCY, 48_000, ALC_REFRESH, 100, 0]
        guard let context = alcCreateContext(device, &attributes) else { throw FixtureError("alcCreateContext failed") }
        defer { alcDestroyContext(context) }
        alcMakeContextCurrent(context)
        defer { alcMakeContextCurrent(nil) }
        var source: ALuint = 0
        alGenSources(1, &source)
        defer { alDeleteSources(1, &source) }
        try body(source)
    }
}
