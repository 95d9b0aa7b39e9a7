import SysoundConfig
import SysoundCore
import SysoundLeds

/// What the manager decides about lights; the LED engine only executes.
/// An LED is for a screen that is off: the screen lock never holds it back.
extension FeedbackManager {
    /// The flash for alerts: a short white burst, bounded (4 blinks at 4 Hz,
    /// 1 s), above every theme's notification light.
    static let alertFlash = LedRequest(
        color: .white, frequencyMilliHz: 4000, priority: 1000, purpose: .alertFlash, cycles: 4, owner: "flash for alerts")

    /// Flashes for a sound of category alert or playback when the `flash`
    /// control file asks for it (always, or in silent mode), unless an
    /// interruption or do not disturb holds alerts (an allowed `important`
    /// request pierces it, as it pierces for the sound). True when it flashed.
    func flashForAlert(_ category: SoundCategory, _ request: PlayRequest) -> Bool {
        guard let leds else { return false }
        let state = state
        guard state.flash.flashes(category, state: state) else { return false }
        let desktop = desktop
        if desktop.doNotDisturb && !configuration.policy.limits(for: request, state: state, desktop: desktop).pierces { return false }
        return leds.show(Self.alertFlash) != nil
    }

    /// The category of a feedbackd event: that of the sound its theme gives
    /// it in any profile, through sysound's names (message-new-instant is an
    /// alert); nil without one. A D-Bus event in silent mode plays no sound
    /// but flashes as its sound's category says.
    func category(ofEvent event: String, in theme: FeedbackdTheme) -> SoundCategory? {
        for (_, feedback) in theme.feedbacks(for: event, level: .full) ?? [] {
            guard case .sound(let sound) = feedback else { continue }
            do throws(FeedbackError) {
                return try resolve(.name(sound.effect)).0.category
            } catch {
                continue
            }
        }
        return nil
    }

    /// Shows a theme's `Led` entry of `event` until `endEventLed`; nil when
    /// there is no light (or its colour is not one feedbackd knows: the
    /// theme's check reported it).
    package func showEventLed(_ led: FeedbackdLed, event: String) -> LedShowID? {
        guard let leds, let color = LedColor(parsing: led.color) else { return nil }
        return leds.show(LedRequest(
            color: color, frequencyMilliHz: led.frequency, priority: led.priority, maxBrightnessPercent: led.maxBrightness,
            owner: "event \(event)"))
    }

    /// Ends what an event showed: the next request on the light shows, or it goes off.
    package func endEventLed(_ id: LedShowID) {
        leds?.end(id)
    }

    /// One record per LED found: used or why not, and what it shows.
    func ledRecords() -> [WireFields] {
        (leds?.report ?? []).map { report in
            if let light = report.light {
                var r: WireFields = [
                    "led": light.name, "kind": light.kind.rawValue, "role": light.role.rawValue,
                    "colors": light.colors.joined(separator: ","), "used": "1", "why": light.why, "shows": report.shows,
                ]
                if light.ledNames != [light.name] { r["leds"] = light.ledNames.joined(separator: ",") }
                if let problem = report.problem { r["problem"] = problem }
                return r
            }
            return ["led": report.skipped?.name ?? "?", "used": "0", "why": report.skipped?.why ?? ""]
        }
    }
}
