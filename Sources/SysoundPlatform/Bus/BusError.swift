import Glibc
import CSystemd

/// A D-Bus error: its name on the wire (`org.freedesktop.DBus.Error.InvalidArgs`),
/// a message for people, and, when a libsystemd call failed locally, the call
/// and its errno.
package struct BusError: Error, Equatable, Sendable, CustomStringConvertible {
    package var name: String
    package var message: String
    /// The sd-bus call that failed locally, e.g. "sd_bus_open_user", or nil for an error reply.
    package var call: String?
    package var errno: Int32

    package init(name: String, message: String, call: String? = nil, errno: Int32 = 0) {
        self.name = name
        self.message = message
        self.call = call
        self.errno = errno
    }

    /// A libsystemd call that returned `-errno`; the name is sd-bus's own
    /// mapping of the errno (ENOENT → org.freedesktop.DBus.Error.FileNotFound).
    package init(call: String, returned code: Int32) {
        let errno = code < 0 ? -code : code
        var error = sd_bus_error()
        sd_bus_error_set_errno(&error, errno)
        defer { sd_bus_error_free(&error) }
        let name = error.name.map { String(cString: $0) } ?? Self.failed
        let text = error.message.map { String(cString: $0) } ?? "errno \(errno)"
        self.init(name: name, message: "\(call): \(text)", call: call, errno: errno)
    }

    /// Copies an sd_bus_error (from a reply or a failed sync call).
    init(_ error: UnsafePointer<sd_bus_error>, call: String? = nil, returned code: Int32 = 0) {
        let name = error.pointee.name.map { String(cString: $0) }
        let text = error.pointee.message.map { String(cString: $0) }
        if let name {
            self.init(name: name, message: text ?? name, call: call, errno: code < 0 ? -code : code)
        } else {
            self.init(call: call ?? "sd-bus", returned: code)
        }
    }

    package var description: String { "\(name): \(message)" }

    /// Sets this error on an sd_bus_error that sd-bus sends as the error reply.
    /// Returns the negative errno sd-bus expects from a handler.
    func set(on target: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        sd_bus_error_set(target, name, message)
    }

    // Well-known names (org.freedesktop.DBus.Error.*).
    package static let failed = "org.freedesktop.DBus.Error.Failed"
    package static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    package static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
    package static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
    package static let propertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"
    package static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
    package static let notSupported = "org.freedesktop.DBus.Error.NotSupported"
    package static let noReply = "org.freedesktop.DBus.Error.NoReply"
    package static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
    package static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
    package static let limitsExceeded = "org.freedesktop.DBus.Error.LimitsExceeded"

    /// The error a handler's failure is answered with.
    static func replying(to error: any Error) -> BusError {
        error as? BusError ?? .failed("\(error)")
    }

    package static func invalidArgs(_ message: String) -> BusError { BusError(name: invalidArgs, message: message) }
    package static func failed(_ message: String) -> BusError { BusError(name: failed, message: message) }
}

/// Checks a libsystemd return value: negative is `-errno`.
@discardableResult
func check(_ code: Int32, _ call: StaticString) throws(BusError) -> Int32 {
    if code < 0 { throw BusError(call: "\(call)", returned: code) }
    return code
}
