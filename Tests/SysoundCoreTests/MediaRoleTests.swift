import SysoundCore
import XCTest

/// The media role of a play, and its spellings on the wire and on the stream.
final class MediaRoleCoreTests: XCTestCase {
    func testParsingIgnoresCaseAndRejectsUnknownRoles() {
        XCTAssertEqual(MediaRole(parsing: "Alarm"), .alarm)
        XCTAssertEqual(MediaRole(parsing: "RINGTONE"), .ringtone)
        XCTAssertEqual(MediaRole(parsing: "event"), .event)
        XCTAssertEqual(MediaRole(parsing: "a11y"), .a11y)
        XCTAssertNil(MediaRole(parsing: "karaoke"))
        XCTAssertNil(MediaRole(parsing: ""))
    }

    /// PulseAudio's roles as it documents them; the phone roles as feedbackd's
    /// default theme and WirePlumber write them. Every spelling parses back.
    func testStreamSpellings() {
        XCTAssertEqual(MediaRole.event.streamName, "event")
        XCTAssertEqual(MediaRole.music.streamName, "music")
        XCTAssertEqual(MediaRole.alarm.streamName, "Alarm")
        XCTAssertEqual(MediaRole.ringtone.streamName, "Ringtone")
        XCTAssertEqual(MediaRole.notification.streamName, "Notification")
        XCTAssertEqual(MediaRole.emergency.streamName, "Emergency")
        for role in MediaRole.allCases {
            XCTAssertEqual(MediaRole(parsing: role.streamName), role)
            XCTAssertEqual(MediaRole(parsing: role.description), role)
        }
    }

    /// The request's role, else the theme's, else the category's: only
    /// playback leaves the event stream by default.
    func testTheRoleOfAPlay() {
        XCTAssertEqual(MediaRole.of(request: nil, entry: nil, category: .ambient), .event)
        XCTAssertEqual(MediaRole.of(request: nil, entry: nil, category: .soloAmbient), .event)
        XCTAssertEqual(MediaRole.of(request: nil, entry: nil, category: .alert), .event)
        XCTAssertEqual(MediaRole.of(request: nil, entry: nil, category: .playback), .alarm)
        XCTAssertEqual(MediaRole.of(request: nil, entry: .ringtone, category: .playback), .ringtone)
        XCTAssertEqual(MediaRole.of(request: nil, entry: .notification, category: .alert), .notification)
        XCTAssertEqual(MediaRole.of(request: .event, entry: .ringtone, category: .playback), .event)
    }
}
