import SysoundCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What the machine says it is, for choosing a device profile
/// (`HapticProfile.choose`).
public enum MachineIdentity {
    /// The device-tree compatible list, most specific first: the kernel's
    /// NUL-separated /sys/firmware/devicetree/base/compatible, or
    /// SYSOUND_DT_COMPATIBLE (entries separated by spaces or newlines, as a
    /// compatible string never holds one) for tests and machines whose
    /// firmware does not tell.
    public static func deviceTreeCompatible(environment: [String: String] = currentEnvironment()) -> [String] {
        if let given = environment["SYSOUND_DT_COMPATIBLE"] {
            return given.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        }
        guard let text = UdevProperties.read("/sys/firmware/devicetree/base/compatible") else { return [] }
        return text.split(separator: "\0").map(String.init)
    }

    /// The DMI product name (x86 and ARM servers, laptops, handhelds), nil without one.
    public static func dmiProductName(environment: [String: String] = currentEnvironment()) -> String? {
        if let given = environment["SYSOUND_DMI_PRODUCT"] { return given }
        guard let text = UdevProperties.read("/sys/class/dmi/id/product_name") else { return nil }
        let name = text.split(separator: "\n").first.map(String.init) ?? ""
        return name.isEmpty ? nil : name
    }

    /// The profile for this machine and the configured fallback (`[haptics] profile`).
    public static func profile(configured: String?) throws(ProfileError) -> ProfileChoice? {
        try HapticProfile.choose(compatible: deviceTreeCompatible(), dmiProduct: dmiProductName(), configured: configured)
    }

    public static func currentEnvironment() -> [String: String] {
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
