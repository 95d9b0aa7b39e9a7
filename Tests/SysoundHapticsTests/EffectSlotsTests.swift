import XCTest
@testable import SysoundHaptics

final class EffectSlotsTests: XCTestCase {
    let e1 = RumbleEffect(magnitude: 0.1, lengthMs: 10)
    let e2 = RumbleEffect(magnitude: 0.2, lengthMs: 10)
    let e3 = RumbleEffect(magnitude: 0.3, lengthMs: 10)
    let e4 = RumbleEffect(magnitude: 0.4, lengthMs: 10)

    func testReusesAnUploadedEffect() throws {
        let d = FakeForceFeedbackDevice(path: "d", slots: 2)
        var slots = EffectSlots(capacity: 2)
        let id = try slots.slot(for: e1, on: d)
        XCTAssertEqual(try slots.slot(for: e1, on: d), id)
        XCTAssertEqual(d.uploadCount, 1)
    }

    func testEvictsTheLeastRecentlyUsed() throws {
        let d = FakeForceFeedbackDevice(path: "d", slots: 2)
        var slots = EffectSlots(capacity: 2)
        let id1 = try slots.slot(for: e1, on: d)
        let id2 = try slots.slot(for: e2, on: d)
        _ = try slots.slot(for: e1, on: d)  // e1 is now the more recent
        let id3 = try slots.slot(for: e3, on: d)
        XCTAssertEqual(id3, id2, "e2's slot was freed and reused")
        XCTAssertEqual(d.effects, [id1: e1, id3: e3])
        XCTAssertEqual(d.records.map(\.operation).filter { if case .erase = $0 { true } else { false } }, [.erase(id: id2)])
    }

    func testSparesEffectsInUse() throws {
        let d = FakeForceFeedbackDevice(path: "d", slots: 2)
        var slots = EffectSlots(capacity: 2)
        let id1 = try slots.slot(for: e1, on: d)
        let id2 = try slots.slot(for: e2, on: d)
        _ = try slots.slot(for: e3, on: d, inUse: [id1])
        XCTAssertEqual(d.effects, [id1: e1, id2: e3], "e2 went although e1 was older")
        XCTAssertThrowsError(try slots.slot(for: e4, on: d, inUse: Set(d.effects.keys))) {
            XCTAssertEqual($0 as? DeviceError, .noSpace(path: "d"))
        }
    }

    func testMakesRoomWhenOtherClientsHoldSlots() throws {
        // The device has 2 slots but another handle holds one: the kernel says
        // ENOSPC before our own count is reached.
        let d = FakeForceFeedbackDevice(path: "d", slots: 2)
        _ = try d.upload(e4, id: nil)
        var slots = EffectSlots(capacity: 2)
        _ = try slots.slot(for: e1, on: d)
        _ = try slots.slot(for: e2, on: d)
        XCTAssertEqual(Set(d.effects.values), [e4, e2])
        XCTAssertEqual(slots.count, 1)
    }

    func testNoRoomAtAll() {
        let d = FakeForceFeedbackDevice(path: "d", slots: 1)
        _ = try? d.upload(e4, id: nil)
        var slots = EffectSlots(capacity: 1)
        XCTAssertThrowsError(try slots.slot(for: e1, on: d)) {
            XCTAssertEqual($0 as? DeviceError, .noSpace(path: "d"))
        }
    }
}
