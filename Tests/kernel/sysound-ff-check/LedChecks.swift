// The LED half of the real-kernel test (Tests/kernel/led-checks.sh runs it):
// the project's LedEngine on the kernel's own LED class, pattern trigger and
// input-leds, against the LEDs of a uinput device (leddev.c), which records
// every brightness change the kernel makes with its time. Shows: an LED
// udev records later is found (hotplug), a blinking Led at its theme
// frequency (±20 %), a steady one, the higher priority shown and the lower
// one back when it ends, off at the end.
import SysoundLeds
import SysoundPlatform
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

enum LedChecks {
    /// One brightness change of the LED under test, µs.
    struct Change {
        var timeUs: Int
        var on: Bool
    }

    /// `--log PATH --led NAME --code N`: leddev's log, the LED's class name, its EV_LED code.
    static func run(_ args: [String]) -> Int32 {
        var logPath = "/tmp/led.log", name = "", code = 1
        var i = 0
        while i + 1 < args.count {
            switch args[i] {
            case "--log": logPath = args[i + 1]
            case "--led": name = args[i + 1]
            case "--code": code = Int(args[i + 1]) ?? -1
            default: fail("unknown argument \(args[i])")
            }
            i += 2
        }
        guard !name.isEmpty, code >= 0 else { fail("usage: sysound-ff-check --leds --led NAME [--code N] [--log PATH]") }
        var report = Report()
        let changes = { (since: Int) -> [Change] in
            guard let text = LedFileText.read(logPath) else { return [] }
            return text.split(separator: "\n").compactMap { line in
                let f = line.split(separator: " ")
                guard f.count == 4, f[1] == "led", Int(f[2]) == code, let t = Int(f[0]), t >= since else { return nil }
                return Change(timeUs: t, on: f[3] != "0")
            }
        }

        let leds: LedEngine
        do {
            leds = LedEngine(host: try LoopHost.ownThread(name: "led-check"))
        } catch {
            fail("no loop: \(error)")
        }
        leds.start()
        // 1. udev's record, written as udevd would after its rule ran: the engine follows the database.
        let record = LedPaths().udevRecord(name)
        let written = LedFileText.write(record, "E:ID_PATH=virtual\nE:FEEDBACKD_TYPE=led\n")
        let found = waitFor(3000) { leds.lights.contains { $0.name == name } }
        report.check("led hotplug", written && found, "\(name) found after udev recorded it: \(leds.lights.map(\.name))")
        guard found else { return 1 }

        // 2. Blinking at the theme's frequency: the kernel's timer, rising edges 1000/f s apart.
        for mHz in [2000, 3000] {
            let start = Clock.nowUs()
            guard let id = leds.show(LedRequest(color: .blue, frequencyMilliHz: mHz, priority: 1, owner: "check")) else {
                report.check("led blink \(mHz) mHz", false, "no light for it")
                continue
            }
            Clock.sleep(ms: 2600)
            leds.end(id)
            let rises = changes(start).filter(\.on).map(\.timeUs)
            let periods = zip(rises.dropFirst(), rises).map { ($0 - $1) / 1000 }.sorted()
            let median = periods.isEmpty ? 0 : periods[periods.count / 2]
            let expected = 1_000_000 / mHz
            report.check(
                "led blink \(mHz) mHz", periods.count >= 3 && abs(median - expected) * 5 <= expected,
                "\(rises.count) rising edges, median period \(median) ms (expected \(expected) ms ±20 %), periods \(periods)")
        }

        // 3. Priorities: a steady higher one covers the blinking one, which comes back when it ends; off at the end.
        Clock.sleep(ms: 300)
        let low = leds.show(LedRequest(color: .blue, frequencyMilliHz: 2000, priority: 1, owner: "low"))
        Clock.sleep(ms: 1200)
        let steadyFrom = Clock.nowUs()
        let high = leds.show(LedRequest(color: .red, frequencyMilliHz: 0, priority: 5, owner: "high"))
        Clock.sleep(ms: 1500)
        let steady = changes(steadyFrom)
        // At most the one step to on (if the blink was off then), nothing after.
        let steadyOK = steady.count <= 1 && (steady.last?.on ?? true) && brightness(name) == "1"
        report.check("led steady, higher priority", high != nil && steadyOK,
                     "changes while the steady one showed: \(steady.map { $0.on ? 1 : 0 }), brightness \(brightness(name))")
        let backFrom = Clock.nowUs()
        if let high { leds.end(high) }
        Clock.sleep(ms: 1600)
        let back = changes(backFrom).filter(\.on).count
        report.check("led the lower priority back", back >= 2, "\(back) rising edges after the higher one ended (2000 mHz: 3)")
        if let low { leds.end(low) }
        let offFrom = Clock.nowUs()
        Clock.sleep(ms: 800)
        let after = changes(offFrom)
        let offOK = brightness(name) == "0" && after.filter(\.on).isEmpty
        report.check("led off at the end", offOK, "brightness \(brightness(name)), changes after the end \(after.map { $0.on ? 1 : 0 })")
        leds.shutdown()
        return report.failed == 0 ? 0 : 1
    }

    static func brightness(_ name: String) -> String {
        LedFileText.read(LedPaths().attribute(name, "brightness")).map { String($0.filter { !$0.isWhitespace }) } ?? "?"
    }
}

/// Small files, read and written whole.
enum LedFileText {
    static func read(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            bytes += chunk[..<n]
            if n < chunk.count { break }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func write(_ path: String, _ text: String) -> Bool {
        let dir = String(path[..<path.lastIndex(of: "/")!])
        _ = mkdir("/run/udev", 0o755)
        _ = mkdir(dir, 0o755)
        guard let file = fopen(path, "w") else { return false }
        defer { fclose(file) }
        return fputs(text, file) >= 0
    }
}
