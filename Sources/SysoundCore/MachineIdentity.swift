#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What the machine says it is: for choosing a haptic device profile
/// (`HapticProfile.choose`) and feedbackd's `$device` theme. Read in this
/// one place, so that tests can supply it.
package enum MachineIdentity {
    /// Overrides the device tree, for tests and machines whose firmware does not tell.
    package static let compatibleVariable = "SYSOUND_DT_COMPATIBLE"
    /// The device-tree compatible list, most specific first: the kernel's
    /// NUL-separated /sys/firmware/devicetree/base/compatible, or
    /// `compatibleVariable` (entries separated by spaces, semicolons or
    /// newlines, which a compatible string never holds; it holds commas).
    package static func deviceTreeCompatible(environment: [String: String] = currentEnvironment()) -> [String] {
        if let given = environment[compatibleVariable] {
            return given.split(whereSeparator: { $0 == " " || $0 == ";" || $0 == "\n" }).map(String.init)
        }
        guard let text = SmallFile.read("/sys/firmware/devicetree/base/compatible") else { return [] }
        return text.split(separator: "\0").map(String.init).filter { !$0.isEmpty }
    }

    /// The DMI product name (x86 and ARM servers, laptops, handhelds), nil without one.
    package static func dmiProductName(environment: [String: String] = currentEnvironment()) -> String? {
        if let given = environment["SYSOUND_DMI_PRODUCT"] { return given }
        guard let text = SmallFile.read("/sys/class/dmi/id/product_name") else { return nil }
        let name = text.split(separator: "\n").first.map(String.init) ?? ""
        return name.isEmpty ? nil : name
    }

    /// The profile for this machine and the configured fallback (`[haptics] profile`).
    package static func profile(configured: String?) throws(ProfileError) -> ProfileChoice? {
        try HapticProfile.choose(compatible: deviceTreeCompatible(), dmiProduct: dmiProductName(), configured: configured)
    }

    package static func currentEnvironment() -> [String: String] {
        var result: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            let text = String(cString: entry)
            if let eq = text.firstIndex(of: "=") { result[String(text[..<eq])] = String(text[text.index(after: eq)...]) }
            p += 1
        }
        return result
    }
}

/// A small file (sysfs, udev's database, a feedbackd theme) read whole, up
/// to a limit; nil when it cannot be opened.
package enum SmallFile {
    /// Its text (UTF-8; a byte that is not becomes U+FFFD), at most 1 MiB.
    package static func read(_ path: String) -> String? {
        bytes(path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Its first `limit` bytes (fewer when a read fails on the way).
    package static func bytes(_ path: String, limit: Int = 1 << 20) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < limit {
            let n = Glibc.read(fd, &chunk, min(chunk.count, limit - bytes.count))
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return bytes
    }
}
