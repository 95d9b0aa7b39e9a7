extension Request {
    /// The request's datagram, without a trailing newline. Options at their
    /// default value are left out; `Request(parsing:)` reads it back equal.
    package func encoded() -> [UInt8] {
        Array(text.utf8)
    }

    /// The request's text form, e.g. `sysound/1 play tap gain=0.5`.
    package var text: String {
        var parts = [WireProtocol.versionToken, verb]
        func option(_ key: String, _ value: String) { parts.append(key + "=" + WireProtocol.encode(value)) }
        switch self {
        case .play(let request, let wait):
            switch request.source {
            case .name(let name): parts.append(WireProtocol.encode(name))
            case .file(let path): option("file", path)
            }
            if let category = request.category { option("category", category.rawValue) }
            if request.gain != 1 { option("gain", WireProtocol.format(request.gain)) }
            if request.rate != 1 { option("rate", WireProtocol.format(request.rate)) }
            if request.duck { option("duck", "1") }
            if request.loop { option("loop", "1") }
            if !request.haptic { option("haptic", "0") }
            if let app = request.app { option("app", app) }
            if let role = request.role { option("role", role.rawValue) }
            if wait { option("wait", "1") }
        case .vibrate(let request):
            switch request.source {
            case .preset(let name): parts.append(WireProtocol.encode(name))
            case .pattern(let pattern): option("pattern", pattern.description)
            case .score(let score): option("score", score.description)
            }
            if request.intensity != 1 { option("intensity", WireProtocol.format(request.intensity)) }
            if let app = request.app { option("app", app) }
        case .stop(.all):
            parts.append("all")
        case .stop(.voice(let id)), .waitForEnd(let id):
            parts.append(WireProtocol.encode(id))
        case .stateGet(let file):
            parts.append("get")
            if let file { parts.append(file.rawValue) }
        case .stateSet(let change):
            parts += ["set", change.file.rawValue, WireProtocol.encode(change.content)]
        case .interruptBegin:
            parts.append("begin")
        case .interruptEnd(let resumable):
            parts.append("end")
            if resumable { parts.append("resumable") }
        case .list(let kind):
            parts.append(kind.rawValue)
        case .ping, .status:
            break
        }
        return parts.joined(separator: " ")
    }
}
