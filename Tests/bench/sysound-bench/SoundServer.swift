import ArgumentParser
import Glibc

/// The sound server the bench runs on: which fixture starts it, what its
/// processes are called in the table, and which processes' CPU counts as the
/// server's (figure 8).
enum SoundServer: String, CaseIterable, ExpressibleByArgument {
    case pulseaudio, pipewire

    /// The fixture script under Tests/fixture/ (it exports SYSOUND_SOUND_SERVER = rawValue).
    var fixture: String { self == .pulseaudio ? "with-pulse.sh" : "with-pipewire.sh" }

    /// The script under Tests/fixture/ that controls the running fixture.
    var control: String { self == .pulseaudio ? "pulse-ctl.sh" : "pipewire-ctl.sh" }

    /// How the table names the server's processes.
    var label: String { self == .pulseaudio ? "PulseAudio server" : "PipeWire (pipewire + pipewire-pulse + wireplumber)" }

    /// The fixture's pid files (in SYSOUND_FIXTURE_DIR) of every process the
    /// server's work is spread over.
    var pidFiles: [String] {
        self == .pulseaudio ? ["pulse.pid"] : ["pipewire.pid", "pipewire-pulse.pid", "wireplumber.pid"]
    }

    /// The server's processes in the running fixture; empty outside one.
    func pids() -> [pid_t] {
        let dir = currentEnvironment()["SYSOUND_FIXTURE_DIR"] ?? ""
        return pidFiles.compactMap { readTextFile(dir + "/" + $0).flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) } }
    }

    /// The server of the fixture this process runs under, if any.
    static var ofFixture: SoundServer? {
        currentEnvironment()["SYSOUND_SOUND_SERVER"].flatMap(SoundServer.init(rawValue:))
    }
}
