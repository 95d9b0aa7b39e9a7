import XCTest
@testable import SysoundHaptics

/// The slot bookkeeping: which effects a device holds, and which to give up.
final class EffectSlotsTests: XCTestCase {
    let e1 = RumbleEffect(magnitude: 0.1, lengthMs: 10)
    let e2 = RumbleEffect(magnitude: 0.2, lengthMs: 10)
    let e3 = RumbleEffect(magnitude: 0.3, lengthMs: 10)

    func testKnowsWhatIsUploaded() {
        var slots = EffectSlots(capacity: 2)
        XCTAssertNil(slots.id(for: e1))
        slots.insert(e1, id: 7)
        XCTAssertEqual(slots.id(for: e1), 7)
        XCTAssertTrue(slots.contains(e1))
        XCTAssertEqual(slots.free, 1)
    }

    func testGivesUpTheLeastRecentlyUsed() {
        var slots = EffectSlots(capacity: 2)
        slots.insert(e1, id: 0)
        slots.insert(e2, id: 1)
        _ = slots.id(for: e1)  // e1 is now the more recent
        XCTAssertEqual(slots.makeRoom(for: 1, sparing: []), [1], "e2's slot is erased")
        XCTAssertFalse(slots.contains(e2))
        XCTAssertEqual(slots.makeRoom(for: 1, sparing: []), [], "room enough already")
    }

    func testSparesEffectsInUse() {
        var slots = EffectSlots(capacity: 2)
        slots.insert(e1, id: 0)
        slots.insert(e2, id: 1)
        XCTAssertEqual(slots.makeRoom(for: 1, sparing: [0]), [1], "e2 goes although e1 is older")
        slots.insert(e3, id: 1)
        XCTAssertEqual(slots.makeRoom(for: 1, sparing: [0, 1]), [], "everything is in use")
        XCTAssertEqual(slots.free, 0)
    }

    func testSettlesForFewerWhenOtherClientsHoldSlots() {
        var slots = EffectSlots(capacity: 4)
        slots.insert(e1, id: 0)
        slots.lowerCapacityToCount()
        XCTAssertEqual(slots.capacity, 1)
        XCTAssertEqual(slots.makeRoom(for: 1, sparing: []), [0])
    }
}
