extension Request {
    /// Parses one request datagram. One trailing `\n` (or `\r\n`) is allowed,
    /// so `echo … | socat` works.
    ///
    /// - Throws: `RequestParseError` naming the bad part; its `reply` is what
    ///   the daemon sends back.
    package init(parsing bytes: some Collection<UInt8>) throws(RequestParseError) {
        self = try RequestParser.parse(Array(bytes))
    }
}

/// The request grammar. Checks run cheapest and most fundamental first: size,
/// encoding, version, verb, then the verb's own arguments.
enum RequestParser {
    static let verbs = ["play", "vibrate", "stop", "wait", "state", "interrupt", "list", "ping", "status"]

    static func parse(_ bytes: [UInt8]) throws(RequestParseError) -> Request {
        guard bytes.count <= WireProtocol.maximumRequestSize else { throw .tooLarge(size: bytes.count) }
        var end = bytes.count
        if end > 0, bytes[end - 1] == 0x0A { end -= 1 }
        if end > 0, bytes[end - 1] == 0x0D, end < bytes.count { end -= 1 }
        let body = bytes[..<end]
        let text = try validate(body)
        let tokens = WireProtocol.tokens(text[...])
        guard let first = tokens.first else { throw .empty }
        guard first.hasPrefix("sysound/") else { throw .missingVersion(found: String(first)) }
        guard first == WireProtocol.versionToken else { throw .unsupportedVersion(found: String(first)) }
        guard tokens.count > 1 else { throw .missingVerb }
        var args = try Arguments(verb: String(tokens[1]), tokens: tokens.dropFirst(2))
        switch args.verb {
        case "play": return try play(&args)
        case "vibrate": return try vibrate(&args)
        case "stop":
            try args.allowOptions([])
            let id = try args.positional("a voice id or all")
            try args.finish()
            return .stop(id == "all" ? .all : .voice(id))
        case "wait":
            try args.allowOptions([])
            let id = try args.positional("a voice id")
            try args.finish()
            return .waitForEnd(id)
        case "state": return try state(&args)
        case "interrupt":
            try args.allowOptions([])
            let request: Request
            switch try args.positional("begin or end") {
            case "begin": request = .interruptBegin
            case "end":
                let flag = args.optionalPositional()
                guard flag == nil || flag == "resumable" else {
                    throw .unexpectedArgument(verb: "interrupt end", found: flag ?? "")
                }
                request = .interruptEnd(resumable: flag != nil)
            case let other: throw .badValue(name: "interrupt", found: other, expected: "begin or end")
            }
            try args.finish()
            return request
        case "list":
            try args.allowOptions([])
            let what = try args.positional("what to list: sounds or presets")
            guard let kind = ListKind(rawValue: what) else {
                throw .badValue(name: "list", found: what, expected: "sounds or presets")
            }
            try args.finish()
            return .list(kind)
        case "ping", "status":
            try args.allowOptions([])
            try args.finish()
            return args.verb == "ping" ? .ping : .status
        default:
            throw .unknownVerb(args.verb)
        }
    }

    /// The text, if it is UTF-8 without raw control characters (tab aside).
    private static func validate(_ body: ArraySlice<UInt8>) throws(RequestParseError) -> String {
        // Nearly every request is printable ASCII: one pass, one string.
        if body.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x09 }) { return String(decoding: body, as: UTF8.self) }
        var offset = 0
        var it = body.makeIterator()
        var decoder = UTF8()
        var scalars = String.UnicodeScalarView()
        scalars.reserveCapacity(body.count)
        loop: while true {
            switch decoder.decode(&it) {
            case .scalarValue(let s):
                if s.value < 0x20 && s != "\t" || s.value == 0x7F {
                    throw .controlCharacter(offset: offset, byte: UInt8(s.value))
                }
                scalars.append(s)
                offset += UTF8.width(s)
            case .emptyInput: break loop
            case .error: throw .invalidUTF8(offset: offset)
            }
        }
        return String(scalars)
    }

    private static func play(_ args: inout Arguments) throws(RequestParseError) -> Request {
        try args.allowOptions(["file", "category", "gain", "rate", "duck", "loop", "haptic", "wait", "app", "role"])
        let name = args.optionalPositional()
        let source: PlayRequest.Source
        switch (name, args.option("file")) {
        case (let name?, nil): source = .name(name)
        case (nil, let file?):
            guard !file.isEmpty else { throw .badValue(name: "file", found: file, expected: "a path to a sound file") }
            source = .file(file)
        case (_?, _?): throw .conflicting("a sound name", "file=")
        case (nil, nil): throw .missingArgument(verb: "play", expected: "a sound name or file=PATH")
        }
        var request = PlayRequest(source)
        if let text = args.option("category") {
            guard let category = SoundCategory(parsing: text) else {
                throw .badValue(name: "category", found: text,
                                expected: SoundCategory.allCases.map(\.rawValue).joined(separator: ", "))
            }
            request.category = category
        }
        request.gain = try args.number("gain", in: PlayRequest.gainRange) ?? request.gain
        request.rate = try args.number("rate", in: PlayRequest.rateRange) ?? request.rate
        request.duck = try args.flag("duck") ?? request.duck
        request.loop = try args.flag("loop") ?? request.loop
        request.haptic = try args.flag("haptic") ?? request.haptic
        request.app = try app(&args)
        if let text = args.option("role") {
            guard let role = MediaRole(parsing: text) else { throw .badValue(name: "role", found: text, expected: MediaRole.names) }
            request.role = role
        }
        let wait = try args.flag("wait") ?? false
        // A loop ends only when stopped: its reply would never come, and it would hold the connection for good.
        if wait && request.loop { throw .conflicting("loop=1", "wait=1") }
        try args.finish()
        return .play(request, wait: wait)
    }

    /// `app=ID`: who asks, for per-app levels. Any printable text up to 255 bytes.
    private static func app(_ args: inout Arguments) throws(RequestParseError) -> String? {
        guard let app = args.option("app") else { return nil }
        guard PlayRequest.isValidApp(app) else {
            throw .badValue(name: "app", found: app, expected: "an app id of 1 to \(PlayRequest.maximumAppLength) printable bytes, e.g. org.example.App")
        }
        return app
    }

    private static func vibrate(_ args: inout Arguments) throws(RequestParseError) -> Request {
        try args.allowOptions(["pattern", "score", "intensity", "app"])
        let source: VibrateRequest.Source
        switch (args.optionalPositional(), args.option("pattern"), args.option("score")) {
        case (let preset?, nil, nil): source = .preset(preset)
        case (nil, let text?, nil):
            do {
                source = .pattern(try HapticPattern(parsing: text))
            } catch {
                throw .badValue(name: "pattern", found: text, expected: error.description)
            }
        case (nil, nil, let text?):
            do {
                source = .score(try HapticScore(parsing: text))
            } catch {
                throw .badValue(name: "score", found: text, expected: error.description)
            }
        case (_?, _?, _), (_?, _, _?): throw .conflicting("a preset name", "pattern= or score=")
        case (nil, _?, _?): throw .conflicting("pattern=", "score=")
        case (nil, nil, nil): throw .missingArgument(verb: "vibrate", expected: "a preset name, pattern=MAG:MS,… or score=…")
        }
        let intensity = try args.number("intensity", in: VibrateRequest.intensityRange) ?? 1
        let app = try app(&args)
        try args.finish()
        return .vibrate(VibrateRequest(source, intensity: intensity, app: app))
    }

    private static func state(_ args: inout Arguments) throws(RequestParseError) -> Request {
        try args.allowOptions([])
        let files = ControlFile.allCases.map(\.rawValue).joined(separator: ", ")
        func controlFile(_ text: String, among allowed: [ControlFile], spelled: String) throws(RequestParseError) -> ControlFile {
            guard let file = ControlFile(rawValue: text), allowed.contains(file) else {
                throw .badValue(name: "setting", found: text, expected: spelled)
            }
            return file
        }
        let request: Request
        switch try args.positional("get or set") {
        case "get":
            request = .stateGet(try args.optionalPositional().map { (t) throws(RequestParseError) in
                try controlFile(t, among: ControlFile.allCases, spelled: files)
            })
        case "set":
            let file = try controlFile(
                try args.positional("a setting: \(StateChange.settableSpelling)"),
                among: StateChange.settableFiles, spelled: StateChange.settableSpelling)
            let value = try args.positional("a value for \(file.rawValue)")
            do {
                request = .stateSet(try StateChange(file, parsing: value))
            } catch {
                throw .badValue(name: file.rawValue, found: value, expected: error.expected)
            }
        case let other:
            throw .badValue(name: "state", found: other, expected: "get or set")
        }
        try args.finish()
        return request
    }
}

/// A verb's arguments: positional tokens in order, then `key=value` options.
struct Arguments {
    let verb: String
    private var positionals: ArraySlice<String>
    private var options: [(key: String, value: String, used: Bool)] = []

    init(verb: String, tokens: ArraySlice<Substring>) throws(RequestParseError) {
        self.verb = verb
        guard RequestParser.verbs.contains(verb) else { throw .unknownVerb(verb) }
        var positionals: [String] = []
        for token in tokens {
            if let eq = token.firstIndex(of: "=") {
                let key = token[..<eq]
                guard WireProtocol.isKey(key) else { throw .badKey(token: String(token)) }
                guard !options.contains(where: { $0.key == key }) else { throw .duplicateOption(key: String(key)) }
                guard let value = WireProtocol.decode(token[token.index(after: eq)...]) else {
                    throw .badEncoding(token: String(token))
                }
                options.append((String(key), value, false))
            } else {
                guard let value = WireProtocol.decode(token) else { throw .badEncoding(token: String(token)) }
                positionals.append(value)
            }
        }
        self.positionals = positionals[...]
    }

    /// Refuses any option key not in `known`.
    func allowOptions(_ known: [String]) throws(RequestParseError) {
        if let bad = options.first(where: { !known.contains($0.key) }) {
            throw .unknownOption(verb: verb, key: bad.key, known: known)
        }
    }

    mutating func positional(_ expected: String) throws(RequestParseError) -> String {
        guard let value = positionals.popFirst() else { throw .missingArgument(verb: verb, expected: expected) }
        return value
    }

    mutating func optionalPositional() -> String? { positionals.popFirst() }

    func option(_ key: String) -> String? { options.first(where: { $0.key == key })?.value }

    func number(_ key: String, in range: ClosedRange<Double>) throws(RequestParseError) -> Double? {
        guard let text = option(key) else { return nil }
        guard let value = WireProtocol.number(text), range.contains(value) else {
            throw .badValue(name: key, found: text,
                            expected: "a number from \(WireProtocol.format(range.lowerBound)) to \(WireProtocol.format(range.upperBound))")
        }
        return value
    }

    func flag(_ key: String) throws(RequestParseError) -> Bool? {
        guard let text = option(key) else { return nil }
        do { return try ControlValue.bool(text) } catch {
            throw .badValue(name: key, found: text, expected: ControlValue.boolSpelling)
        }
    }

    /// Refuses leftover positional arguments.
    func finish() throws(RequestParseError) {
        if let extra = positionals.first { throw .unexpectedArgument(verb: verb, found: extra) }
    }
}
