import Glibc

/// The real-time time a cgroup gives its tasks, where the kernel schedules
/// real-time tasks by group (cgroup v1's cpu controller with
/// CONFIG_RT_GROUP_SCHED: the file `cpu.rt_runtime_us`). A task in a group
/// whose budget is 0 may not become real-time at all: sched_setscheduler
/// answers EPERM even to root, and rtkit's grant fails the same way. A new
/// cpu cgroup starts at 0, so a container or a service placed in its own cpu
/// group (CPU limits on cgroup v1) is in one unless someone gave it time.
/// Read so that the log can say why, not only "Operation not permitted".
package struct CgroupRealtimeBudget: Equatable, Sendable {
    /// The task's cpu cgroup as /proc/self/cgroup names it.
    package var cgroup: String
    /// Its `cpu.rt_runtime_us`, where this process sees it.
    package var file: String
    /// µs of real-time per period (`cpu.rt_period_us`) for the whole group; -1 is no limit.
    package var microseconds: Int64

    package init(cgroup: String, file: String, microseconds: Int64) {
        self.cgroup = cgroup
        self.file = file
        self.microseconds = microseconds
    }

    /// This process's, or nil where there is no such budget (cgroup v2, a
    /// kernel without group scheduling of real-time tasks, no cgroup mounted).
    package static func current() -> CgroupRealtimeBudget? {
        current(read: readSmallFile)
    }

    /// As `current()`, with the files read by `read` (a test's texts).
    package static func current(read: (String) -> String?) -> CgroupRealtimeBudget? {
        guard let cgroups = read("/proc/self/cgroup"), let mountinfo = read("/proc/self/mountinfo"),
              let (cgroup, file) = budgetFile(cgroups: cgroups, mountinfo: mountinfo),
              let text = read(file), let us = Int64(text.split(separator: "\n").first ?? "")
        else { return nil }
        return CgroupRealtimeBudget(cgroup: cgroup, file: file, microseconds: us)
    }

    /// The cpu cgroup from /proc/self/cgroup ("3:cpu,cpuacct:/a/b") and
    /// where its `cpu.rt_runtime_us` is: under the mount of the cpu
    /// hierarchy in /proc/self/mountinfo, whose root (field 4) may be a
    /// part of the path already (a container's view).
    static func budgetFile(cgroups: String, mountinfo: String) -> (cgroup: String, file: String)? {
        var cgroup: String?
        for line in cgroups.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            if fields.count == 3, fields[1].split(separator: ",").contains("cpu") { cgroup = String(fields[2]) }
        }
        guard let cgroup else { return nil }
        for line in mountinfo.split(separator: "\n") {
            // "ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL…] - FSTYPE SOURCE SUPEROPTIONS"
            let fields = line.split(separator: " ")
            guard let dash = fields.firstIndex(of: "-"), dash >= 5, fields.count >= dash + 4 else { continue }
            let mount = fields[..<dash], fs = fields[(dash + 1)...].map { $0 }
            guard fs[0] == "cgroup", fs[2].split(separator: ",").contains("cpu") else { continue }
            let root = String(mount[mount.startIndex + 3]), point = String(mount[mount.startIndex + 4])
            let relative: String
            if root == "/" {
                relative = cgroup
            } else if cgroup == root || cgroup.hasPrefix(root + "/") {
                relative = String(cgroup.dropFirst(root.count))
            } else {
                continue
            }
            let dir = relative.isEmpty || relative == "/" ? point : point + relative
            return (cgroup, dir + "/cpu.rt_runtime_us")
        }
        return nil
    }
}

/// A small file's text (/proc and cgroup files report a size of 0, so read
/// until the end), or nil when it cannot be opened.
private func readSmallFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while bytes.count < 1 << 20 {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { break }
        bytes += chunk[..<n]
    }
    return String(decoding: bytes, as: UTF8.self)
}
