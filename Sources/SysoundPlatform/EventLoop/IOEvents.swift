import CSystemd

/// What an io source waits for and reports (epoll(7) bits).
public struct IOEvents: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let readable = IOEvents(rawValue: UInt32(EPOLLIN.rawValue))
    public static let writable = IOEvents(rawValue: UInt32(EPOLLOUT.rawValue))
    public static let error = IOEvents(rawValue: UInt32(EPOLLERR.rawValue))
    public static let hangUp = IOEvents(rawValue: UInt32(EPOLLHUP.rawValue))
}
