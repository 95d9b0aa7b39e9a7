import CSystemd

/// What an io source waits for and reports (epoll(7) bits).
package struct IOEvents: OptionSet, Sendable {
    package let rawValue: UInt32
    package init(rawValue: UInt32) { self.rawValue = rawValue }

    package static let readable = IOEvents(rawValue: UInt32(EPOLLIN.rawValue))
    package static let writable = IOEvents(rawValue: UInt32(EPOLLOUT.rawValue))
    package static let error = IOEvents(rawValue: UInt32(EPOLLERR.rawValue))
    package static let hangUp = IOEvents(rawValue: UInt32(EPOLLHUP.rawValue))
}
