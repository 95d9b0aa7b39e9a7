import Foundation
import Glibc

/// A music player as the sound server sees one: `pacat` playing a steady
/// 440 Hz tone (16-bit stereo, 48 kHz) with the server's default buffering
/// (no latency asked for: PulseAudio's 2 s target), fed from a pipe by a
/// thread of the bench for as long as it runs. What figure 15 measures the
/// sound server's rest cost beside.
final class MusicStream {
    let pid: pid_t
    private let feeder: JoinableThread

    init(sink: String) throws {
        let fds = try makePipe()
        do {
            pid = try Children.spawn("/usr/bin/pacat", [
                "--playback", "--format=s16le", "--rate=48000", "--channels=2", "--device=\(sink)",
                "--client-name=sysound-bench music", "--stream-name=steady tone", "--property=media.role=music",
            ], stdin: fds[0])
        } catch {
            close(fds[0]); close(fds[1])
            throw error
        }
        close(fds[0])
        let out = fds[1]
        feeder = JoinableThread {
            // 0.1 s holds exactly 44 periods of 440 Hz: the block repeats without a seam.
            let frames = 4800
            var block = [Int16](repeating: 0, count: frames * 2)
            for i in 0..<frames {
                let v = Int16(0.2 * 32767 * sin(2 * Double.pi * 440 * Double(i) / 48000))
                block[2 * i] = v
                block[2 * i + 1] = v
            }
            // Blocks while the pipe is full: pacat reads as the server asks.
            // Ends when pacat has gone (EPIPE; the bench ignores SIGPIPE).
            outer: while true {
                var offset = 0
                let total = block.count * 2
                while offset < total {
                    let n = block.withUnsafeBytes { write(out, $0.baseAddress! + offset, total - offset) }
                    if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { break outer }
                }
            }
            close(out)
        }
    }

    /// Whether pacat is still playing (it exits if it cannot connect).
    var isPlaying: Bool { !Children.hasExited(pid) }

    /// Stops pacat by PID and waits for the feeding thread to end.
    func stop() {
        Children.stop(pid)
        feeder.join()
    }
}
