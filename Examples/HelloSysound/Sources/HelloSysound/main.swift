import Sysound

// A tap, a chime heard to its end, a pulse, and the user's settings, with
// the async API. Without a daemon the engine runs in this process.
let sound = SoundService()
print(sound.isUsingDaemon ? "sysound daemon at \(sound.stateDirectoryPath)" : "no daemon: the sounds play in this process")

// The first sound of a burst should not wait for a device to open.
await sound.prepare()

do {
    let tap = try await sound.play("tap")
    print("tap: \(tap.outcome)\(tap.reason.map { " (\($0))" } ?? "")")

    let chime = try await sound.play("message-sent", category: .alert)
    await chime.finished
    print("message-sent: \(chime.outcome), finished")
} catch {
    // The message says what to do (start a sound server, fix a name…).
    print("could not play: \(error)")
}

do {
    let pulse = try await sound.vibrate(.success)
    print("vibration: \(pulse.outcome)\(pulse.skipped.map { " (\($0))" } ?? "")")
} catch let error as SoundServiceError where error.kind == .noDevice {
    print("no vibrator here")
} catch {
    print("could not vibrate: \(error)")
}

let settings = sound.settings
print("silent: \(settings.silent), volume: \(settings.volume), haptics: \(settings.haptics)")

// Keep the sounds of this short-lived process until they have ended.
sound.waitUntilIdle()
