import CSystemd
import Glibc

// The C boundary of the loop, in one place: sd-event calls these
// `@convention(c)` functions with the userdata pointer it was given, an
// `Unmanaged` reference to a `Handler`, which the source owns (+1) until
// sd-event destroys the source and calls `releaseHandler`.

/// A Swift closure sd-event calls through a trampoline below.
final class Handler<Argument> {
    let body: (Argument) -> Void
    init(_ body: @escaping (Argument) -> Void) { self.body = body }

    /// The userdata to give sd-event: a +1 reference `releaseHandler` drops.
    var retainedPointer: UnsafeMutableRawPointer { Unmanaged.passRetained(self).toOpaque() }

    static func call(_ userdata: UnsafeMutableRawPointer?, _ argument: Argument) -> Int32 {
        Unmanaged<Handler<Argument>>.fromOpaque(userdata!).takeUnretainedValue().body(argument)
        return 0  // a negative value would make sd-event disable the source
    }
}

let releaseHandler: sd_event_destroy_t = { userdata in
    guard let userdata else { return }
    Unmanaged<AnyObject>.fromOpaque(userdata).release()
}

let ioTrampoline: sd_event_io_handler_t = { _, _, revents, userdata in
    Handler<UInt32>.call(userdata, revents)
}

let timeTrampoline: sd_event_time_handler_t = { _, usec, userdata in
    Handler<UInt64>.call(userdata, usec)
}

let signalTrampoline: sd_event_signal_handler_t = { _, info, userdata in
    Handler<Int32>.call(userdata, Int32(bitPattern: info?.pointee.ssi_signo ?? 0))
}

let inotifyTrampoline: sd_event_inotify_handler_t = { _, event, userdata in
    guard let event else { return 0 }
    return Handler<InotifyEvent>.call(userdata, InotifyEvent(event))
}

/// One event from inotify(7), decoded from the kernel's record: the
/// project's only place that knows its layout, whether sd-event read it
/// (`addInotify`) or a caller read an inotify descriptor itself (`parse`).
package struct InotifyEvent: Equatable, Sendable {
    /// The watch descriptor the event is for.
    package var wd: Int32
    package var mask: UInt32
    /// The name within a watched directory, empty for the directory itself.
    package var name: String

    package init(wd: Int32 = -1, mask: UInt32, name: String) {
        self.wd = wd
        self.mask = mask
        self.name = name
    }

    /// The fixed part of a record: {wd, mask, cookie, len}; `len` bytes of
    /// NUL-padded name follow.
    private static let headerSize = MemoryLayout<inotify_event>.size

    /// Decodes one record at the start of `bytes`; nil if it is cut short.
    private static func decode(_ bytes: UnsafeRawBufferPointer) -> (event: InotifyEvent, size: Int)? {
        guard bytes.count >= headerSize else { return nil }
        let header = bytes.loadUnaligned(as: inotify_event.self)
        let size = headerSize + Int(header.len)
        guard bytes.count >= size else { return nil }
        let name = String(decoding: bytes[headerSize..<size].prefix { $0 != 0 }, as: UTF8.self)
        return (InotifyEvent(wd: header.wd, mask: header.mask, name: name), size)
    }

    /// Decodes a buffer read from an inotify descriptor; a record cut short ends it.
    package static func parse(_ bytes: UnsafeRawBufferPointer) -> [InotifyEvent] {
        var events: [InotifyEvent] = []
        var offset = 0
        while let (event, size) = decode(UnsafeRawBufferPointer(rebasing: bytes[offset...])) {
            events.append(event)
            offset += size
        }
        return events
    }

    /// The record sd-event hands to an inotify source.
    init(_ event: UnsafePointer<inotify_event>) {
        let size = Self.headerSize + Int(event.pointee.len)
        self = Self.decode(UnsafeRawBufferPointer(start: event, count: size))!.event
    }

    /// Whether any of `bits` (IN_* flags) is set.
    package func has(_ bits: Int32) -> Bool { mask & UInt32(bitPattern: bits) != 0 }
}

/// Calls a sd-* function and turns its negative-errno convention into a throw.
@discardableResult
func check(_ call: StaticString, _ result: Int32) throws(EventLoopError) -> Int32 {
    guard result >= 0 else { throw EventLoopError(call: "\(call)", errno: -result) }
    return result
}
