import Foundation

/// A plain `pacat` stream beside sysound's, for judging sysound's stream
/// against what the sound server does to any stream in the same run.
///
/// On the shared 2-core test machine both servers now and then drop audio of
/// every stream at once: pipewire-pulse 0.3.65 whole graph cycles, and runs
/// of cycles when its main thread is late to pass on requests and data;
/// PulseAudio runs of milliseconds. sysound's stream and a plain `pacat`
/// stream with the same buffer then dip in the same frames
/// (docs/reliability.md, "Dips that are the server's"). So a dip counts
/// against sysound only where this control's tone, recorded in the same
/// frames, held. What is sysound's own (its render, its locks, its writes,
/// a reload beside them) still shows; what it shares with any stream of
/// the same buffer does not.
///
/// It plays a 440 Hz tone of amplitude 0.5 on the right channel (sysound's
/// tone goes on the left), asks for the buffer sysound's stream asks for
/// (`tlength` 384 frames, `minreq` 96: on PipeWire with the shipped drop-in
/// granted 320 and 128, on PulseAudio 288 and 96) and carries the same
/// client mark, so it gets the same floor, quantum and buffer.
package final class ControlTone {
    private let process: Spawned

    /// Starts the stream (sox generates the tone as pacat plays it, for as
    /// long as it runs) and waits until the server lists it.
    package init() throws {
        let tone = "/usr/bin/sox -n -t raw -r 48000 -c 2 -e floating-point -b 32 - synth 3600 sine 440 vol 0.5 remix 0 1"
        let pacat = "PULSE_PROP=sysound.engine=openal-soft /usr/bin/pacat --raw --format=float32le --rate=48000 --channels=2"
            + " --latency=\(384 * 8) --process-time=\(96 * 8) --stream-name=sysound-control"
        // A session of its own, so that `stop` ends sox and pacat together.
        process = try Spawned("/usr/bin/setsid", ["/bin/sh", "-c", tone + " | " + pacat], output: .discard)
        let listed = eventually(5) {
            (try? Spawned.run("/usr/bin/pactl", ["list", "sink-inputs"]).stdout.contains("media.name = \"sysound-control\"")) == true
        }
        guard listed else {
            stop()
            throw FixtureError("the control stream (sox | pacat) did not start")
        }
    }

    package func stop() {
        kill(-process.pid, SIGTERM)
        process.wait(timeout: 5, then: SIGKILL)
    }

    /// Where a steady tone of amplitude 0.5 dipped: the first frames of the
    /// `window`-frame windows from `start` on whose peak is below −26 dBFS.
    package static func dips(_ x: [Float], from start: Int, window: Int = 96) -> [Int] {
        stride(from: start, to: x.count - window, by: window).filter { Signal.peak(x[$0..<$0 + window]) < 0.0501 }
    }

    /// The dips of `dips` (windows of `window` frames) during which the
    /// control's tone, recorded in the same frames, held: the stream's own.
    /// The control counts as dipped where it fell silent (24 frames below
    /// 0.02, which a 440 Hz tone of amplitude 0.5 never is) within one
    /// stream buffer (`tlength`, 384 frames) of the window: two streams that
    /// a late server lets run dry fall silent as far apart as their fill
    /// levels were, and each fill is anywhere within its buffer (seen on
    /// PipeWire: sysound's tone 288 frames before the control's).
    package static func own(_ dips: [Int], window: Int = 96, control: [Float], buffer: Int = 384) -> [Int] {
        dips.filter { d in
            let lo = max(0, d - buffer), hi = min(control.count, d + window + buffer)
            var run = 0
            for i in lo..<max(lo, hi) {
                run = abs(control[i]) < 0.02 ? run + 1 : 0
                if run >= 24 { return false }
            }
            return true
        }
    }
}
