import CSysoundShims
import CSystemd
import Foundation
import SysoundBus

/// An sd-event loop on a thread of its own, for the D-Bus face until the
/// daemon runs one loop for everything (issue 13): work from other threads
/// (a control file changed) is posted and runs on the loop's thread, woken
/// through an eventfd, so bus state is only ever touched there.
final class LoopThread: @unchecked Sendable {
    let event: OpaquePointer
    private let wake: Int32
    private let inbox = NSLock()
    private var posted: [() -> Void] = []
    private var wakeSource: OpaquePointer?
    private let done = DispatchSemaphore(value: 0)

    init() throws(BusError) {
        var e: OpaquePointer? = nil
        let r = sd_event_new(&e)
        guard r >= 0, let e else { throw BusError(call: "sd_event_new", returned: r) }
        event = e
        wake = sysound_eventfd()
        guard wake >= 0 else {
            sd_event_unref(e)
            throw BusError(call: "eventfd", returned: -errno)
        }
        var source: OpaquePointer? = nil
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        let added = sd_event_add_io(event, &source, wake, UInt32(EPOLLIN.rawValue), { _, fd, _, userdata in
            var count: UInt64 = 0
            _ = read(fd, &count, 8)
            guard let userdata else { return 0 }
            Unmanaged<LoopThread>.fromOpaque(userdata).takeUnretainedValue().drain()
            return 0
        }, userdata)
        if added < 0 {
            close(wake)
            sd_event_unref(e)
            throw BusError(call: "sd_event_add_io", returned: added)
        }
        wakeSource = source
    }

    deinit {
        if let wakeSource { sd_event_source_disable_unref(wakeSource) }
        close(wake)
        sd_event_unref(event)
    }

    func start(name: String) {
        let thread = Thread { [self] in
            _ = sd_event_loop(event)
            done.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Runs `work` on the loop's thread, soon.
    func post(_ work: @escaping () -> Void) {
        inbox.lock()
        posted.append(work)
        inbox.unlock()
        var one: UInt64 = 1
        _ = write(wake, &one, 8)
    }

    /// Runs `last` on the loop, then ends the loop and waits for its thread.
    func stop(after last: @escaping () -> Void) {
        post { [self] in
            last()
            sd_event_exit(event, 0)
        }
        done.wait()
    }

    private func drain() {
        inbox.lock()
        let work = posted
        posted = []
        inbox.unlock()
        for item in work { item() }
    }
}
