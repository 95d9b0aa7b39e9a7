import Glibc
import SysoundCore

/// Records the null sink's monitor through `parec --latency-msec=1` (raw
/// s16le, 48 kHz stereo) on a pipe, logging CLOCK_MONOTONIC and the
/// cumulative frame count after every read. The null sink renders on the
/// same monotonic clock, so frame k was played at S + k/48000; S is found
/// near each event as the lowest (arrival time − k/48000).
final class MonitorRecorder: @unchecked Sendable {
    static let rate = 48_000.0

    struct Read { var time: UInt64; var frames: Int }

    private struct Data {
        var reads: [Read] = []
        /// Per frame: max(|left|, |right|).
        var levels: [Int16] = []
    }

    private let data = Locked(Data())
    private let pid: pid_t
    private let fd: Int32
    private var thread: JoinableThread?

    /// Starts parec on `sink`'s monitor; PULSE_SERVER comes from the environment.
    init(sink: String) throws {
        let fds = try makePipe()
        do {
            pid = try Children.spawn("/usr/bin/parec", [
                "-d", sink + ".monitor", "--format=s16le", "--rate=48000", "--channels=2", "--latency-msec=1", "--raw",
            ], stdout: fds[1])
        } catch {
            close(fds[0]); close(fds[1])
            throw error
        }
        close(fds[1])
        fd = fds[0]
        thread = JoinableThread { [self] in self.readLoop() }
    }

    private func readLoop() {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var carry: [UInt8] = []
        var frames = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            let now = Clock.now()
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            var bytes = carry + buffer[..<n]
            let whole = bytes.count / 4 * 4
            carry = Array(bytes[whole...])
            bytes.removeLast(bytes.count - whole)
            var levels = [Int16](repeating: 0, count: whole / 4)
            bytes.withUnsafeBytes { raw in
                for i in 0..<(whole / 4) {
                    let l = Int16(littleEndian: raw.loadUnaligned(fromByteOffset: i * 4, as: Int16.self))
                    let r = Int16(littleEndian: raw.loadUnaligned(fromByteOffset: i * 4 + 2, as: Int16.self))
                    levels[i] = Swift.max(l == .min ? .max : abs(l), r == .min ? .max : abs(r))
                }
            }
            frames += levels.count
            let total = frames
            data.withLock { d in
                d.levels += levels
                d.reads.append(Read(time: now, frames: total))
            }
        }
    }

    /// Frames recorded so far.
    var frameCount: Int { data.withLock { $0.levels.count } }

    /// Stops parec and the reader; the recording stays readable.
    func stop() {
        Children.stop(pid, grace: 1)
        thread?.join()
        thread = nil
        close(fd)
    }

    /// A copy of the recording.
    func snapshot() -> (reads: [Read], levels: [Int16]) { data.withLock { ($0.reads, $0.levels) } }
}
