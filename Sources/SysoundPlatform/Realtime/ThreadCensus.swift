import Glibc

/// The threads of this process as /proc/self/task lists them: how the engine
/// finds the audio threads a library starts without telling (OpenAL Soft
/// 1.19.1 neither names its mixer thread nor says its id).
package enum ThreadCensus {
    /// The ids of every thread of this process now.
    package static func threads() -> Set<pid_t> {
        var ids = Set<pid_t>()
        guard let dir = opendir("/proc/self/task") else { return ids }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if let id = pid_t(name) { ids.insert(id) }
        }
        return ids
    }

    /// A thread's name (/proc/self/task/TID/comm), or nil when it is gone.
    package static func name(of tid: pid_t) -> String? {
        guard let f = fopen("/proc/self/task/\(tid)/comm", "r") else { return nil }
        defer { fclose(f) }
        var buffer = [CChar](repeating: 0, count: 64)
        guard fgets(&buffer, Int32(buffer.count), f) != nil else { return nil }
        let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }

    /// Runs `body` on this thread and returns, with its result, the threads
    /// that `body` started and that are still running: those that appeared
    /// while it ran and are named either as this thread (a thread that does
    /// not name itself keeps its creator's name) or one of `names` (a library
    /// thread that names itself, e.g. libpulse's "threaded-ml"). The name
    /// test keeps out a thread another part of the process started meanwhile
    /// under a name of its own (the worker pool's are started once, at
    /// start-up; libdispatch names its threads "…-qos…").
    package static func started<T, E: Error>(
        named names: Set<String>, by body: () throws(E) -> T
    ) throws(E) -> (result: T, threads: [pid_t]) {
        let own = name(of: SchedulerCalls.currentThread())
        let before = threads()
        let result = try body()
        let new = threads().subtracting(before).sorted().filter { tid in
            guard let n = name(of: tid) else { return false }
            return n == own || names.contains(n)
        }
        return (result, new)
    }
}
