import Foundation

/// The real `sysound` CLI, built next to the tests, on one state directory.
package struct CLI {
    package let stateDir: String

    /// A CLI on a fresh private state directory (mode 0700) under the temp
    /// directory; `cleanUp()` removes it.
    package init() throws {
        stateDir = NSTemporaryDirectory() + "sysound-e2e-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: stateDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// A CLI on `stateDir`, which someone else (a daemon) owns.
    package init(stateDir: String) { self.stateDir = stateDir }

    package func cleanUp() { try? FileManager.default.removeItem(atPath: stateDir) }

    /// Runs `sysound ARGS --state-dir DIR` and waits for it (SIGTERM after
    /// `timeout` seconds); as another user through setpriv(1) if one is given.
    @discardableResult
    package func run(_ arguments: [String], as user: User? = nil, timeout: Double = 30) throws -> Spawned.Result {
        let command = [try TestPaths.sysound] + arguments + ["--state-dir", stateDir]
        guard let user else { return try Spawned.run(command[0], Array(command.dropFirst()), timeout: timeout) }
        return try Spawned.run("/usr/bin/setpriv", user.setprivArguments + ["--"] + command, timeout: timeout)
    }

    /// `sysound status` as key → value (each `key: value` line); empty when
    /// the CLI could not be run, so a test waiting for a field waits on.
    package func status() -> [String: String] {
        let out = (try? run(["status"]))?.stdout ?? ""
        var fields: [String: String] = [:]
        for line in out.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }
}

/// Another user for setpriv(1): `nobody`, optionally with supplementary groups.
package struct User: Sendable {
    package var uid: uid_t = 65534
    package var gid: gid_t = 65534
    package var groups: [gid_t] = []

    package init(uid: uid_t = 65534, gid: gid_t = 65534, groups: [gid_t] = []) {
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }

    package static let nobody = User()
    package static func nobody(inGroup group: gid_t) -> User { User(groups: [group]) }

    /// setpriv's options that switch to this user (real and effective IDs, groups).
    package var setprivArguments: [String] {
        ["--reuid=\(uid)", "--regid=\(gid)"] + (groups.isEmpty ? ["--clear-groups"] : ["--groups=" + groups.map(String.init).joined(separator: ",")])
    }
}
