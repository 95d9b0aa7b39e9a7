import CSystemd
import Foundation
import SysoundPlatform
import XCTest

/// The sd-bus wrapper against a real dbus-daemon and real clients (busctl, gdbus).
final class BusTests: XCTestCase {
    var loop: TestLoop!
    var bus: Bus!
    var slots: [BusSlot] = []
    var level = "full"
    var changes: [String] = []

    override func setUpWithError() throws {
        try requirePrivateBus()
        loop = TestLoop()
        bus = try Bus.open(.user)
        try bus.attach(to: loop.loop)
    }

    override func tearDown() {
        slots = []
        bus = nil
        loop = nil
    }

    /// A test interface: echo, arithmetic, a typed error, a variant echo, a writable property and a signal.
    func exportTestInterface(_ name: String) throws {
        var interface = BusInterface("org.sysound.Test")
        interface.method("Echo", "s", arguments: ["text"], result: "s", results: ["echo"]) { call in
            let text = try call.message.readString()
            try call.reply { m in try m.append(text) }
        }
        interface.method("Add", "ii", arguments: ["a", "b"], result: "i", results: ["sum"]) { call in
            let a = try call.message.readInt32(), b = try call.message.readInt32()
            try call.reply { m in try m.append(a &+ b) }
        }
        interface.method("Fail", "") { _ in
            throw BusError(name: "org.sysound.Error.Test", message: "failed on purpose")
        }
        interface.method("EchoAny", "v", result: "v") { call in
            guard let value = try call.message.readValue() else { throw BusError.invalidArgs("no value") }
            try call.reply { m in try m.append(value) }
        }
        interface.method("Hints", "a{sv}", result: "s") { call in
            let hints = try call.message.readVardict()
            let text = hints.keys.sorted().map { "\($0)=\(hints[$0]!)" }.joined(separator: ";")
            try call.reply { m in try m.append(text) }
        }
        interface.property("Level", "s", get: { [unowned self] m in try m.append(self.level) }, set: { [unowned self] m in
            let new = try m.readString()
            guard ["full", "quiet", "silent"].contains(new) else { throw BusError.invalidArgs("no such level: \(new)") }
            self.level = new
            self.changes.append(new)
        })
        interface.signal("Ping", "u", arguments: ["count"])
        slots.append(try bus.export(interface, at: "/org/sysound/Test"))
        var owned = false
        let name = try BusName(name, on: bus, flags: []) { owned = $0 == .owner }
        XCTAssertTrue(loop.run(until: { owned }))
        retained.append(name)
    }
    var retained: [AnyObject] = []

    func testBusctlCallsMethodsAndSeesTypedErrors() throws {
        try exportTestInterface("org.sysound.T1")
        let echo = try loop.run(["busctl", "--user", "call", "org.sysound.T1", "/org/sysound/Test", "org.sysound.Test", "Echo", "s", "hello world"])
        XCTAssertEqual(echo.status, 0, echo.error)
        XCTAssertEqual(echo.output.trimmingCharacters(in: .whitespacesAndNewlines), "s \"hello world\"")
        let add = try loop.run(["busctl", "--user", "call", "org.sysound.T1", "/org/sysound/Test", "org.sysound.Test", "Add", "ii", "--", "-5", "12"])
        XCTAssertEqual(add.output.trimmingCharacters(in: .whitespacesAndNewlines), "i 7", add.error)
        let fail = try loop.run(["gdbus", "call", "--session", "-d", "org.sysound.T1", "-o", "/org/sysound/Test", "-m", "org.sysound.Test.Fail"])
        XCTAssertNotEqual(fail.status, 0)
        XCTAssertTrue(fail.error.contains("org.sysound.Error.Test"), fail.error)
        XCTAssertTrue(fail.error.contains("failed on purpose"), fail.error)
        // sd-bus checks the signature against the vtable: the handler never sees it.
        let wrong = try loop.run(["busctl", "--user", "call", "org.sysound.T1", "/org/sysound/Test", "org.sysound.Test", "Echo", "u", "5"])
        XCTAssertNotEqual(wrong.status, 0)
        XCTAssertTrue(wrong.error.lowercased().contains("invalid") || wrong.error.contains("InvalidArgs"), wrong.error)
        let hints = try loop.run(["gdbus", "call", "--session", "-d", "org.sysound.T1", "-o", "/org/sysound/Test", "-m", "org.sysound.Test.Hints",
                                  "{'profile': <'quiet'>, 'important': <true>, 'n': <uint32 7>}"])
        XCTAssertEqual(hints.status, 0, hints.error)
        XCTAssertTrue(hints.output.contains("important=true;n=7;profile=\\\"quiet\\\"") || hints.output.contains("important=true;n=7;profile=\"quiet\""), hints.output)
    }

    func testIntrospectionNamesArguments() throws {
        try exportTestInterface("org.sysound.T2")
        let xml = try loop.run(["gdbus", "introspect", "--session", "--xml", "-d", "org.sysound.T2", "-o", "/org/sysound/Test"])
        XCTAssertEqual(xml.status, 0, xml.error)
        XCTAssertTrue(xml.output.contains(#"<arg type="s" name="text" direction="in"/>"#), xml.output)
        XCTAssertTrue(xml.output.contains(#"<arg type="i" name="sum" direction="out"/>"#), xml.output)
        XCTAssertTrue(xml.output.contains(#"<signal name="Ping">"#), xml.output)
        XCTAssertTrue(xml.output.contains(#"<property name="Level" type="s" access="readwrite">"#), xml.output)
    }

    func testPropertiesBothWaysAndPropertiesChanged() throws {
        try exportTestInterface("org.sysound.T3")
        let client = try Bus.open(.user)
        try client.attach(to: loop.loop)
        var seen: [String: BusValue] = [:]
        let watch = try client.watchPropertiesChanged(path: "/org/sysound/Test") { interface, changed, _ in
            if interface == "org.sysound.Test" { seen.merge(changed) { $1 } }
        }
        var got: Result<BusValue, BusError>?
        try client.getProperty(destination: "org.sysound.T3", path: "/org/sysound/Test", interface: "org.sysound.Test", name: "Level") { got = $0 }
        XCTAssertTrue(loop.run(until: { got != nil }))
        XCTAssertEqual(try got?.get(), .string("full"))

        var set: Result<Void, BusError>?
        try client.setProperty(destination: "org.sysound.T3", path: "/org/sysound/Test", interface: "org.sysound.Test", name: "Level", value: .string("quiet")) { set = $0 }
        XCTAssertTrue(loop.run(until: { set != nil }))
        XCTAssertNoThrow(try set?.get())
        XCTAssertEqual(level, "quiet")
        // The setter's error reaches the client with its D-Bus name.
        set = nil
        try client.setProperty(destination: "org.sysound.T3", path: "/org/sysound/Test", interface: "org.sysound.Test", name: "Level", value: .string("loud")) { set = $0 }
        XCTAssertTrue(loop.run(until: { set != nil }))
        XCTAssertThrowsError(try set?.get()) { XCTAssertEqual(($0 as? BusError)?.name, BusError.invalidArgs) }
        // Wrong variant type: sd-bus refuses it before the setter.
        set = nil
        try client.setProperty(destination: "org.sysound.T3", path: "/org/sysound/Test", interface: "org.sysound.Test", name: "Level", value: .uint32(3)) { set = $0 }
        XCTAssertTrue(loop.run(until: { set != nil }))
        XCTAssertThrowsError(try set?.get())
        XCTAssertEqual(level, "quiet")

        try bus.emitPropertiesChanged(path: "/org/sysound/Test", interface: "org.sysound.Test", names: ["Level"])
        XCTAssertTrue(loop.run(until: { seen["Level"] == .string("quiet") }), "\(seen)")
        _ = watch
        // busctl sees the same property.
        let read = try loop.run(["busctl", "--user", "get-property", "org.sysound.T3", "/org/sysound/Test", "org.sysound.Test", "Level"])
        XCTAssertEqual(read.output.trimmingCharacters(in: .whitespacesAndNewlines), "s \"quiet\"", read.error)
    }

    func testValuesRoundTripThroughAVariant() throws {
        try exportTestInterface("org.sysound.T4")
        let client = try Bus.open(.user)
        try client.attach(to: loop.loop)
        let values: [BusValue] = [
            .string(""), .string(String(repeating: "ü", count: 1000)), .bool(true), .byte(255), .int16(-3), .uint16(65535),
            .int32(.min), .uint32(.max), .int64(.min), .uint64(.max), .double(-0.25), .objectPath("/a/b"), .signature("a{sv}"),
            .array(element: "s", []), .array(element: "(du)", [.structure([.double(0.5), .uint32(100)]), .structure([.double(1), .uint32(20)])]),
            .vardict([("profile", .string("quiet")), ("important", .bool(true)), ("nested", .vardict([("x", .int32(1))]))]),
            .dictionary(key: "u", value: "as", [.init(.uint32(1), .array(element: "s", [.string("a"), .string("b")]))]),
            .variant(.variant(.string("deep"))),
        ]
        for value in values {
            let m = try client.newMethodCall(destination: "org.sysound.T4", path: "/org/sysound/Test", interface: "org.sysound.Test", member: "EchoAny")
            try m.append(.variant(value))
            var reply: Result<BusMessage, BusError>?
            try client.callAsync(m) { reply = $0 }
            XCTAssertTrue(loop.run(until: { reply != nil }))
            let back = try reply!.get().readValue()
            XCTAssertEqual(back, .variant(value), "\(value)")
        }
        XCTAssertThrowsError(try client.newMethodCall(destination: nil, path: "/", interface: nil, member: "X").append("a\0b"))
    }

    func testErrorRepliesAndMissingPeersAreTypedErrors() throws {
        try exportTestInterface("org.sysound.T5")
        let client = try Bus.open(.user)
        try client.attach(to: loop.loop)
        var reply: Result<BusMessage, BusError>?
        try client.callAsync(try client.newMethodCall(destination: "org.sysound.T5", path: "/org/sysound/Test", interface: "org.sysound.Test", member: "Fail")) { reply = $0 }
        XCTAssertTrue(loop.run(until: { reply != nil }))
        XCTAssertThrowsError(try reply!.get()) { XCTAssertEqual(($0 as? BusError)?.name, "org.sysound.Error.Test") }
        reply = nil
        try client.callAsync(try client.newMethodCall(destination: "org.sysound.Nobody", path: "/", interface: "org.sysound.Test", member: "Fail")) { reply = $0 }
        XCTAssertTrue(loop.run(until: { reply != nil }))
        XCTAssertThrowsError(try reply!.get()) { XCTAssertEqual(($0 as? BusError)?.name, BusError.serviceUnknown) }
        reply = nil
        try client.callAsync(try client.newMethodCall(destination: "org.sysound.T5", path: "/org/sysound/Test", interface: "org.sysound.Test", member: "Nope")) { reply = $0 }
        XCTAssertTrue(loop.run(until: { reply != nil }))
        XCTAssertThrowsError(try reply!.get()) { XCTAssertEqual(($0 as? BusError)?.name, BusError.unknownMethod) }
    }

    func testSignalsReachMatchesAndOwnerChangesAreSeen() throws {
        try exportTestInterface("org.sysound.T6")
        let client = try Bus.open(.user)
        try client.attach(to: loop.loop)
        var pings: [UInt32] = []
        let match = try client.matchSignal(interface: "org.sysound.Test", member: "Ping") { m in
            if let n = try? m.readUInt32() { pings.append(n) }
        }
        // Let the AddMatch reach the bus before emitting.
        var pong: Result<BusMessage, BusError>?
        try client.callAsync(try client.newMethodCall(destination: "org.sysound.T6", path: "/org/sysound/Test", interface: "org.sysound.Test", member: "Add").with { m in try m.append(Int32(1)); try m.append(Int32(2)) }) { pong = $0 }
        XCTAssertTrue(loop.run(until: { pong != nil }))
        try bus.emitSignal(path: "/org/sysound/Test", interface: "org.sysound.Test", member: "Ping") { m in try m.append(UInt32(42)) }
        XCTAssertTrue(loop.run(until: { pings == [42] }), "\(pings)")
        _ = match

        // A client leaving the bus: NameOwnerChanged with an empty new owner.
        let leaver = try Bus.open(.user)
        try leaver.attach(to: loop.loop)
        XCTAssertTrue(loop.run(until: { leaver.uniqueName != nil }))
        let unique = leaver.uniqueName!
        var gone = false
        let watch = try client.watchNameOwner(unique) { _, new in if new.isEmpty { gone = true } }
        _ = try loop.run(["busctl", "--user", "status", "--no-pager", unique])  // a round trip: the match is installed
        leaver.detachEvent()
        _ = consume leaver
        XCTAssertTrue(loop.run(until: { gone }))
        _ = watch
    }

    func testNameQueueHandsTheNameOverWhenTheOwnerLeaves() throws {
        var firstState: BusName.State = .requesting, secondState: BusName.State = .requesting
        var first: Bus? = try Bus.open(.user)
        try first!.attach(to: loop.loop)
        var owner: BusName? = try BusName("org.sysound.Queue", on: first!, flags: [.allowReplacement]) { firstState = $0 }
        XCTAssertTrue(loop.run(until: { firstState == .owner }))
        let second = try Bus.open(.user)
        try second.attach(to: loop.loop)
        let waiting = try BusName("org.sysound.Queue", on: second, flags: [.queue]) { secondState = $0 }
        XCTAssertTrue(loop.run(until: { secondState == .queued }), "\(secondState)")
        XCTAssertNotNil(waiting.owner ?? first!.uniqueName)
        // Without queueing, a taken name is just refused.
        var thirdState: BusName.State = .requesting
        let third = try BusName("org.sysound.Queue", on: bus, flags: []) { thirdState = $0 }
        XCTAssertTrue(loop.run(until: { thirdState == .taken }), "\(thirdState)")
        _ = third
        owner = nil
        first!.detachEvent()
        first = nil
        XCTAssertTrue(loop.run(until: { secondState == .owner }), "\(secondState)")
        _ = owner

        // replaceExisting takes it from an owner that allows replacement; the old owner sees NameLost.
        var fourthState: BusName.State = .requesting
        let fourth = try Bus.open(.user)
        try fourth.attach(to: loop.loop)
        secondState = .requesting
        let again = try BusName("org.sysound.Replace", on: second, flags: [.allowReplacement]) { secondState = $0 }
        XCTAssertTrue(loop.run(until: { secondState == .owner }))
        let taker = try BusName("org.sysound.Replace", on: fourth, flags: [.replaceExisting]) { fourthState = $0 }
        XCTAssertTrue(loop.run(until: { fourthState == .owner && secondState == .lost }), "\(fourthState) \(secondState)")
        _ = (again, taker, waiting)
    }

    func testConnectionComesBackAfterTheBusRestarts() throws {
        guard let ctl = ProcessInfo.processInfo.environment["SYSOUND_DBUS_CTL"] else { throw XCTSkip("no SYSOUND_DBUS_CTL") }
        var lost = 0
        var names: [BusName] = []
        let connection = BusConnection(loop: loop.loop, open: { () throws(BusError) -> Bus in try Bus.open(.user) }, connected: { bus in
            names = [try! BusName("org.sysound.Back", on: bus, flags: [])]
        }, disconnected: { _ in lost += 1; names = [] })
        connection.start()
        XCTAssertTrue(loop.run(until: { names.first?.state == .owner }))
        XCTAssertEqual(try loop.run([ctl, "stop", "session"]).status, 0)
        XCTAssertTrue(loop.run(until: { lost == 1 }))
        // While the bus is away, attempts fail and are retried.
        XCTAssertTrue(loop.run(until: { connection.lastError != nil && connection.bus == nil }, timeout: 3))
        XCTAssertEqual(try loop.run([ctl, "start", "session"]).status, 0)
        XCTAssertTrue(loop.run(until: { connection.connections == 2 && names.first?.state == .owner }, timeout: 10), "\(String(describing: connection.lastError))")
        let seen = try loop.run(["busctl", "--user", "status", "--no-pager", "org.sysound.Back"])
        XCTAssertEqual(seen.status, 0, seen.error)
        connection.stop()
    }
}

extension BusMessage {
    func with(_ build: (BusMessage) throws -> Void) rethrows -> BusMessage {
        try build(self)
        return self
    }
}
