import SysoundCore
import XCTest

/// A voice's id on the wire (`slot.serial`, `slot.serial.role`): what a play
/// replies, and what `wait`, `stop` and the library read back.
final class VoiceIDWireTests: XCTestCase {
    func testTheWireFormReadsBackAsTheSameVoice() {
        for voice in [VoiceID(slot: 3, serial: 17, role: .event), VoiceID(slot: 0, serial: UInt32.max, role: .alarm)] {
            XCTAssertEqual(VoiceID(voice.wireID), voice, voice.wireID)
        }
        XCTAssertEqual(VoiceID(slot: 3, serial: 17, role: .event).wireID, "3.17")
        XCTAssertEqual(VoiceID(slot: 3, serial: 17, role: .alarm).wireID, "3.17.alarm")
    }

    func testAnythingElseIsNotAVoice() {
        for text in ["", "3", "3.", ".17", "3.17.", "3.17.alarm.x", "3.17.nosuchrole", "-1.17", "3.-17", "3.4294967296", "a.b", "3..17"] {
            XCTAssertNil(VoiceID(text), "\"\(text)\"")
        }
    }
}
