import SysoundCore
import XCTest

/// The request grammar: what parses to what, and every malformed input
/// class producing the right error code and a message naming the bad part.
final class WireRequestTests: XCTestCase {
    private func parse(_ text: String) throws(RequestParseError) -> Request {
        try Request(parsing: Array(text.utf8))
    }

    private func assertRefused(
        _ bytes: [UInt8], _ code: WireErrorCode, mentions: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        do {
            let request = try Request(parsing: bytes)
            XCTFail("accepted as \(request)", file: file, line: line)
        } catch {
            XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
            XCTAssertTrue(error.description.contains(mentions), "\(error.description) lacks \(mentions)", file: file, line: line)
            guard case .error(let replyCode, let message) = error.reply else { return XCTFail(file: file, line: line) }
            XCTAssertEqual(replyCode, code, file: file, line: line)
            XCTAssertEqual(message, error.description, file: file, line: line)
        }
    }

    private func assertRefused(
        _ text: String, _ code: WireErrorCode, mentions: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        assertRefused(Array(text.utf8), code, mentions: mentions, file: file, line: line)
    }

    func testWellFormedRequests() throws {
        let table: [(String, Request)] = [
            ("sysound/1 ping", .ping),
            ("sysound/1 ping\n", .ping),
            ("sysound/1 status\r\n", .status),
            ("  sysound/1\tplay   tap  ", .play(PlayRequest(.name("tap")))),
            ("sysound/1 play tap gain=0.5 rate=1.25", .play(PlayRequest(.name("tap"), gain: 0.5, rate: 1.25))),
            ("sysound/1 play alarm category=playback duck=on loop=yes haptic=off",
             .play(PlayRequest(.name("alarm"), category: .playback, duck: true, loop: true, haptic: false))),
            ("sysound/1 play alarm category=playback wait=1", .play(PlayRequest(.name("alarm"), category: .playback), wait: true)),
            ("sysound/1 play message category=solo_ambient", .play(PlayRequest(.name("message"), category: .soloAmbient))),
            ("sysound/1 play file=/home/me/My%20Sound%25.wav", .play(PlayRequest(.file("/home/me/My Sound%.wav")))),
            ("sysound/1 play gain=2.5e-1 tap", .play(PlayRequest(.name("tap"), gain: 0.25))),
            ("sysound/1 play tap gain=0 rate=0.5", .play(PlayRequest(.name("tap"), gain: 0, rate: 0.5))),
            ("sysound/1 play klänge", .play(PlayRequest(.name("klänge")))),
            ("sysound/1 vibrate success", .vibrate(VibrateRequest(.preset("success")))),
            ("sysound/1 vibrate heavy intensity=0.3", .vibrate(VibrateRequest(.preset("heavy"), intensity: 0.3))),
            ("sysound/1 vibrate pattern=1:20,0:40,0.6:30",
             .vibrate(VibrateRequest(.pattern(HapticPattern(steps: [.init(magnitude: 1, durationMs: 20), .init(magnitude: 0, durationMs: 40), .init(magnitude: 0.6, durationMs: 30)]))))),
            ("sysound/1 stop all", .stop(.all)),
            ("sysound/1 stop 3.17", .stop(.voice("3.17"))),
            ("sysound/1 wait 3.17", .waitForEnd("3.17")),
            ("sysound/1 state get", .stateGet(nil)),
            ("sysound/1 state get interrupted", .stateGet(.interrupted)),
            ("sysound/1 state set silent on", .stateSet(try StateChange(.silent, parsing: "1"))),
            ("sysound/1 state set volume 50%25", .stateSet(try StateChange(.volume, parsing: "0.5"))),
            ("sysound/1 state set vibrate-on-alert no", .stateSet(try StateChange(.vibrateOnAlert, parsing: "0"))),
            ("sysound/1 interrupt begin", .interruptBegin),
            ("sysound/1 interrupt end", .interruptEnd(resumable: false)),
            ("sysound/1 interrupt end resumable", .interruptEnd(resumable: true)),
            ("sysound/1 list sounds", .list(.sounds)),
            ("sysound/1 list presets", .list(.presets)),
        ]
        for (text, expected) in table {
            XCTAssertEqual(try parse(text), expected, text)
        }
        XCTAssertEqual(try StateChange(.volume, parsing: "50%").content, "0.5")
    }

    func testMalformedInputsAreTypedErrors() {
        assertRefused("", .badRequest, mentions: "empty request")
        assertRefused("\n", .badRequest, mentions: "empty request")
        assertRefused("   \t ", .badRequest, mentions: "empty request")
        assertRefused([UInt8](repeating: 0, count: 4096), .badRequest, mentions: "control character 0x00 at offset 0")
        assertRefused([UInt8](repeating: 0x61, count: 4097), .tooLarge, mentions: "4097 bytes")
        assertRefused(Array("sysound/1 play ".utf8) + [0xFF, 0xFE], .badRequest, mentions: "not UTF-8 (bad byte at offset 15)")
        assertRefused(Array("sysound/1 play ta".utf8) + [0xC3], .badRequest, mentions: "offset 17")
        assertRefused("sysound/1 play tap\nsysound/1 ping", .badRequest, mentions: "control character 0x0A at offset 18")
        assertRefused("ping", .version, mentions: "must start with sysound/1")
        assertRefused("sysound/2 ping", .version, mentions: "not \"sysound/2\"")
        assertRefused("sysound/1", .badRequest, mentions: "no verb")
        assertRefused("sysound/1 dance", .badRequest, mentions: "unknown verb \"dance\"")
        assertRefused("sysound/1 play", .badRequest, mentions: "play: missing a sound name or file=PATH")
        assertRefused("sysound/1 play tap extra", .badRequest, mentions: "unexpected argument \"extra\"")
        assertRefused("sysound/1 play tap file=/x.wav", .badRequest, mentions: "exclude each other")
        // A loop's end never comes: waiting for it would hold the connection (and its reply) for good.
        assertRefused("sysound/1 play alarm loop=1 wait=1", .badRequest, mentions: "loop=1 and wait=1 exclude each other")
        assertRefused("sysound/1 play file=", .badValue, mentions: "file")
        assertRefused("sysound/1 vibrate", .badRequest, mentions: "vibrate: missing a preset name")
        assertRefused("sysound/1 stop", .badRequest, mentions: "stop: missing a voice id or all")
        assertRefused("sysound/1 wait", .badRequest, mentions: "wait: missing a voice id")
        assertRefused("sysound/1 wait 1.2 3.4", .badRequest, mentions: "3.4")
        assertRefused("sysound/1 state", .badRequest, mentions: "missing get or set")
        assertRefused("sysound/1 state set silent", .badRequest, mentions: "missing a value for silent")
        assertRefused("sysound/1 state set", .badRequest, mentions: "missing a setting")
        assertRefused("sysound/1 interrupt", .badRequest, mentions: "missing begin or end")
        assertRefused("sysound/1 list", .badRequest, mentions: "missing what to list")
        assertRefused("sysound/1 ping now", .badRequest, mentions: "unexpected argument \"now\"")
        assertRefused("sysound/1 interrupt end later", .badRequest, mentions: "\"later\"")
    }

    func testBadValuesNameTheOption() {
        assertRefused("sysound/1 play tap gain=nan", .badValue, mentions: "gain \"nan\": expected a number from 0 to 1")
        assertRefused("sysound/1 play tap gain=inf", .badValue, mentions: "gain \"inf\"")
        assertRefused("sysound/1 play tap gain=1e400", .badValue, mentions: "gain \"1e400\"")
        assertRefused("sysound/1 play tap gain=1.5", .badValue, mentions: "gain \"1.5\"")
        assertRefused("sysound/1 play tap gain=-0.1", .badValue, mentions: "gain")
        assertRefused("sysound/1 play tap gain=0x1p-1", .badValue, mentions: "gain")
        assertRefused("sysound/1 play tap gain=" + String(repeating: "9", count: 400), .badValue, mentions: "gain \"9999")
        assertRefused("sysound/1 play tap rate=3", .badValue, mentions: "rate \"3\": expected a number from 0.5 to 2")
        assertRefused("sysound/1 play tap category=loud", .badValue, mentions: "ambient, solo-ambient, alert, playback")
        assertRefused("sysound/1 play tap duck=maybe", .badValue, mentions: "duck \"maybe\"")
        assertRefused("sysound/1 vibrate pattern=1:20,2:40", .badValue, mentions: "step 2")
        assertRefused("sysound/1 vibrate pattern=1:99999", .badValue, mentions: "milliseconds")
        assertRefused("sysound/1 vibrate tap intensity=7", .badValue, mentions: "intensity")
        assertRefused("sysound/1 state set volume 2", .badValue, mentions: "volume \"2\"")
        assertRefused("sysound/1 state set silent maybe", .badValue, mentions: "silent \"maybe\"")
        assertRefused("sysound/1 state set interrupted 1", .badValue, mentions: "setting \"interrupted\"")
        assertRefused("sysound/1 state get colour", .badValue, mentions: "setting \"colour\"")
        assertRefused("sysound/1 list everything", .badValue, mentions: "sounds or presets")
        assertRefused("sysound/1 interrupt pause", .badValue, mentions: "begin or end")
    }

    func testOptionsAndEncodingErrors() {
        assertRefused("sysound/1 play tap gain=0.5 gain=0.6", .badRequest, mentions: "option \"gain\" given more than once")
        assertRefused("sysound/1 play tap volume=1", .badRequest, mentions: "unknown option \"volume\"; known: file, category")
        assertRefused("sysound/1 ping x=1", .badRequest, mentions: "it takes no options")
        assertRefused("sysound/1 play tap Gain=1", .badRequest, mentions: "\"Gain=1\" is not key=value")
        assertRefused("sysound/1 play tap =1", .badRequest, mentions: "not key=value")
        assertRefused("sysound/1 play ta%zz", .badRequest, mentions: "bad %-escape")
        assertRefused("sysound/1 play ta%4", .badRequest, mentions: "bad %-escape")
        assertRefused("sysound/1 play ta%00p", .badRequest, mentions: "bad %-escape")
        assertRefused("sysound/1 play ta%FF", .badRequest, mentions: "bad %-escape")
        assertRefused("sysound/1 play file=%C3", .badRequest, mentions: "bad %-escape")
    }

    func testAppOption() throws {
        guard case .play(let play, _) = try parse("sysound/1 play tap app=org.example.App") else { return XCTFail() }
        XCTAssertEqual(play.app, "org.example.App")
        guard case .vibrate(let vibrate) = try parse("sysound/1 vibrate tap app=org.x") else { return XCTFail() }
        XCTAssertEqual(vibrate.app, "org.x")
        assertRefused("sysound/1 play tap app=", .badValue, mentions: "app")
        assertRefused("sysound/1 play tap app=" + String(repeating: "a", count: 256), .badValue, mentions: "app id")
        let request = Request.play(PlayRequest(.name("tap"), app: "org.a b"))
        XCTAssertEqual(try Request(parsing: request.encoded()), request)
    }

    func testRoleOption() throws {
        guard case .play(let play, _) = try parse("sysound/1 play bell role=Ringtone") else { return XCTFail() }
        XCTAssertEqual(play.role, .ringtone)
        guard case .play(let plain, _) = try parse("sysound/1 play bell") else { return XCTFail() }
        XCTAssertNil(plain.role, "no role= leaves it to the theme and the category")
        assertRefused("sysound/1 play tap role=karaoke", .badValue, mentions: "role \"karaoke\": expected event, ")
        let request = Request.play(PlayRequest(.name("tap"), role: .alarm))
        XCTAssertEqual(request.text, "sysound/1 play tap role=alarm")
        XCTAssertEqual(try Request(parsing: request.encoded()), request)
    }

    func testRoundTrips() throws {
        let pattern = try HapticPattern(parsing: "0.25:15,0:40,1:30")
        let requests: [Request] = [
            .ping, .status, .interruptBegin, .interruptEnd(resumable: false), .interruptEnd(resumable: true),
            .list(.sounds), .list(.presets), .stop(.all), .stop(.voice("12.3")), .waitForEnd("12.3"), .stateGet(nil), .stateGet(.volume),
            .stateSet(try StateChange(.volume, parsing: "0.3333333333333333")),
            .stateSet(try StateChange(.locked, parsing: "on")),
            .play(PlayRequest(.name("tap"))),
            .play(PlayRequest(.name("name with spaces=and%percent")), wait: true),
            .play(PlayRequest(.file("/tmp/a b/ç.wav"), category: .alert, gain: 0.1 + 0.2, rate: 0.5,
                              duck: true, loop: true, haptic: false)),
            .play(PlayRequest(.name("x"), gain: 1e-7)),
            .vibrate(VibrateRequest(.preset("success"), intensity: 0.7)),
            .vibrate(VibrateRequest(.pattern(pattern))),
            .event(.trigger(name: "message-new-instant")), .event(.trigger(name: "a b", timeout: 0, app: "org.example.A")),
            .event(.trigger(name: "x", timeout: 86_400)), .event(.end(7)), .event(.wait(4_294_967_295)),
        ]
        for request in requests {
            let bytes = request.encoded()
            XCTAssertLessThanOrEqual(bytes.count, WireProtocol.maximumRequestSize)
            XCTAssertEqual(try Request(parsing: bytes), request, request.text)
            XCTAssertEqual(try Request(parsing: bytes + [0x0A]), request, "with echo's newline: \(request.text)")
        }
        XCTAssertEqual(Request.play(PlayRequest(.name("tap"), gain: 0.5)).text, "sysound/1 play tap gain=0.5")
        XCTAssertEqual(Request.play(PlayRequest(.file("/a b")), wait: true).text, "sysound/1 play file=/a%20b wait=1")
    }

    /// `event NAME [timeout=N] [app=ID]`, `event end=ID`, `event wait=ID`: exactly one of the three, values in range.
    func testEventRequests() throws {
        XCTAssertEqual(try parse("sysound/1 event phone-incoming-call timeout=0 app=org.gnome.Calls"),
                       .event(.trigger(name: "phone-incoming-call", timeout: 0, app: "org.gnome.Calls")))
        XCTAssertEqual(try parse("sysound/1 event end=12"), .event(.end(12)))
        XCTAssertEqual(try parse("sysound/1 event wait=12"), .event(.wait(12)))
        assertRefused("sysound/1 event", .badRequest, mentions: "end=ID")
        assertRefused("sysound/1 event x timeout=-2", .badValue, mentions: "timeout")
        assertRefused("sysound/1 event x timeout=1.5", .badValue, mentions: "timeout")
        assertRefused("sysound/1 event x timeout=86401", .badValue, mentions: "86400")
        assertRefused("sysound/1 event end=0", .badValue, mentions: "end")
        assertRefused("sysound/1 event end=x", .badValue, mentions: "event id")
        assertRefused("sysound/1 event x end=3", .badRequest, mentions: "end=")
        assertRefused("sysound/1 event end=3 wait=3", .badRequest, mentions: "wait=")
        assertRefused("sysound/1 event end=3 timeout=1", .badRequest, mentions: "timeout=")
        assertRefused("sysound/1 event x y", .badRequest, mentions: "y")
        assertRefused("sysound/1 event x loop=1", .badRequest, mentions: "loop")
    }
}
