// swift-tools-version:6.1
// The layering is the architecture, and the folders under Sources/ show it:
//   C/               the C libraries (Debian's, found with pkg-config) and the small C shims
//   SysoundCore      the pure model: policy, patterns, the wire protocol; no C, no I/O
//   SysoundPlatform  the operating system: the sd-event loop, sd-bus, real-time threads, rtkit
//   SysoundState, SysoundConfig   the control files; configuration and themes
//   SysoundAudio, SysoundHaptics, SysoundLeds  the engines (devices that execute)
//   SysoundFeedback  the manager that decides
//   SysoundDesktop   the desktop's own state: the session lock, the desktop's switches
//   SysoundDaemon    the daemon's faces: the socket and feedbackd's D-Bus interface
//   SysoundClient, Sysound        the daemon's client; the app library
//   Programs/        the executables and the options they share
import PackageDescription

let package = Package(
    name: "sysound",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "Sysound", targets: ["Sysound"]),
        .executable(name: "sysound", targets: ["sysound"]),
        .executable(name: "sysound-cli", targets: ["sysound-cli"]),
        .executable(name: "sysound-play", targets: ["sysound-play"]),
        .executable(name: "sysound-engine", targets: ["sysound-engine"]),
        .executable(name: "sysound-soundgen", targets: ["sysound-soundgen"]),
    ],
    // An app that only ever talks to the daemon can leave the embedded engine
    // out (`traits: []` on its dependency): its Sysound then links the client
    // alone, without OpenAL, libpulse, libsndfile, libevdev or TOMLKit.
    traits: [
        .trait(name: "EmbeddedEngine", description: "Play in the app's own process when no daemon answers."),
        .default(enabledTraits: ["EmbeddedEngine"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        // `make docs`: the library's DocC catalog (swift package generate-documentation --target Sysound).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // MARK: C libraries (Debian packages, found with pkg-config), in Sources/C
        .systemLibrary(
            name: "COpenAL", path: "Sources/C/COpenAL", pkgConfig: "openal",
            providers: [.apt(["libopenal-dev"])]),
        .systemLibrary(
            name: "CSndfile", path: "Sources/C/CSndfile", pkgConfig: "sndfile",
            providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(
            name: "CEvdev", path: "Sources/C/CEvdev", pkgConfig: "libevdev",
            providers: [.apt(["libevdev-dev"])]),
        .systemLibrary(
            name: "CSystemd", path: "Sources/C/CSystemd", pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]),
        // libpulse: the engine's own playback stream (Sources/SysoundAudio/PulseStream.swift)
        // and the benchmark's onset meter (Tests/bench/sysound-bench/SinkOnsetMeter.swift).
        .systemLibrary(
            name: "CPulse", path: "Sources/C/CPulse", pkgConfig: "libpulse",
            providers: [.apt(["libpulse-dev"])]),
        // GSettings, to follow the desktop's own settings (GNOME's sound and
        // notification keys, feedbackd's panel) as dconf, keyfile or memory
        // backends store them, with the schemas' defaults: Sources/SysoundDesktop/Switches.
        .systemLibrary(
            name: "CGio", path: "Sources/C/CGio", pkgConfig: "gio-2.0",
            providers: [.apt(["libglib2.0-dev"])]),
        // What Swift cannot import: ioctl request macros, variadic ioctl, ucred.
        // sd-bus vtables, built at run time: the SD_BUS_* macros do not import.
        .target(name: "CSysoundBus", dependencies: ["CSystemd"], path: "Sources/C/CSysoundBus"),
        .target(name: "CSysoundShims", path: "Sources/C/CSysoundShims"),

        // MARK: Core model: pure Swift, no C, no I/O
        .target(name: "SysoundCore"),

        // MARK: The operating system
        // The daemon's one loop (sd-event), its worker pool and sd-daemon; sd-bus
        // for Swift (connections, messages, exported interfaces, names, matches,
        // reconnection) on that loop; real-time audio threads (sched_setscheduler,
        // RLIMIT_RTTIME, a broker the composer supplies) and rtkit
        // (org.freedesktop.RealtimeKit1), the daemon's broker.
        .target(
            name: "SysoundPlatform",
            dependencies: ["SysoundCore", "CSystemd", "CSysoundBus", "CSysoundShims", .product(name: "Logging", package: "swift-log")]),

        // MARK: State and configuration
        .target(
            name: "SysoundConfig",
            dependencies: ["SysoundCore", "CSndfile", .product(name: "TOMLKit", package: "TOMLKit")]),
        .target(
            name: "SysoundState",
            dependencies: [
                "SysoundCore", "SysoundPlatform",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        // MARK: The engines
        .target(
            name: "SysoundAudio",
            dependencies: [
                "SysoundCore", "SysoundPlatform", "COpenAL", "CSndfile", "CPulse", "CSysoundShims",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "SysoundHaptics",
            dependencies: [
                "SysoundCore", "CEvdev", "CSysoundShims", "SysoundPlatform",
                .product(name: "Logging", package: "swift-log"),
            ]),

        // The notification LED and the camera flash (sysfs's LED class, the
        // kernel's pattern trigger), found through udev's database as feedbackd
        // finds them; its file calls behind `LedFiles`, so tests run it on a
        // directory tree.
        .target(
            name: "SysoundLeds",
            dependencies: ["SysoundCore", "SysoundPlatform", .product(name: "Logging", package: "swift-log")]),

        // MARK: The manager that decides
        // Policy and the engines it drives: what the daemon serves and what the
        // library embeds without a daemon.
        .target(
            name: "SysoundFeedback",
            dependencies: [
                "SysoundCore", "SysoundConfig", "SysoundState", "SysoundAudio", "SysoundHaptics", "SysoundLeds", "SysoundPlatform",
                .product(name: "Logging", package: "swift-log"),
            ]),

        // MARK: The desktop's own state
        // The screen lock from logind and the screensavers (Lock/); the
        // desktop's switches (GSettings on a GLib context the daemon's loop
        // drives, Plasma's notification inhibition on the session bus), fed to
        // the manager as the policy's `DesktopState` (Switches/).
        .target(
            name: "SysoundDesktop",
            dependencies: [
                "SysoundCore", "SysoundFeedback", "SysoundState", "SysoundPlatform", "SysoundHaptics", "CEvdev", "CGio",
                .product(name: "Logging", package: "swift-log"),
            ]),

        // MARK: The daemon's faces
        // The socket, access control, lifecycle; feedbackd's org.sigxcpu.Feedback
        // on D-Bus (DBus/), translated into the manager's requests.
        .target(
            name: "SysoundDaemon",
            dependencies: [
                "SysoundCore", "SysoundConfig", "SysoundState", "SysoundFeedback", "SysoundPlatform", "SysoundClient",
                "SysoundLeds", "CSysoundShims", "CSystemd",
                .product(name: "Logging", package: "swift-log"),
            ]),

        // MARK: Clients
        // The daemon's client side, light enough for the CLI's fast path (no OpenAL, no Foundation).
        .target(name: "SysoundClient", dependencies: ["SysoundCore"]),
        // The app library: the daemon's client, and (trait EmbeddedEngine, on by
        // default) the manager embedded; never the daemon.
        .target(
            name: "Sysound",
            dependencies: [
                "SysoundCore", "SysoundClient", "SysoundState",
                .target(name: "SysoundConfig", condition: .when(traits: ["EmbeddedEngine"])),
                .target(name: "SysoundAudio", condition: .when(traits: ["EmbeddedEngine"])),
                .target(name: "SysoundFeedback", condition: .when(traits: ["EmbeddedEngine"])),
                .product(name: "Logging", package: "swift-log"),
            ]),

        // MARK: Executables, in Sources/Programs
        // `sysound` answers `play NAME` with a daemon up by itself: no
        // Foundation, no argument parser, and in release a fully static
        // executable, which the kernel starts without the dynamic loader
        // (loading libstdc++ cost more than the request). Not PIE: glibc's
        // static-pie start-up asserts on the $ORIGIN run path SwiftPM adds.
        // Debug builds stay dynamic so that --sanitize works. Every other
        // command it hands to sysound-cli with execv.
        .executableTarget(
            name: "sysound",
            dependencies: ["SysoundCore", "SysoundClient"],
            path: "Sources/Programs/sysound",
            linkerSettings: [.unsafeFlags(["-static-executable"], .when(platforms: [.linux], configuration: .release))]),
        // The full CLI is a thin client too: what needs the engines (no
        // daemon, serve, check, --to) runs in sysound-engine.
        .executableTarget(
            name: "sysound-cli",
            dependencies: [
                "SysoundCore", "SysoundClient", "SysoundState", "SysoundCLIOptions", "SysoundProgramOutput",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Programs/sysound-cli"),
        // `sysound play NAME` without a daemon: the library's embedded engine
        // and nothing of the daemon (no D-Bus face, no GLib, no argument
        // parser), which the loader would map and bind before the first
        // sample. Linked as sysound-engine is (below).
        .executableTarget(
            name: "sysound-play",
            dependencies: ["Sysound", "SysoundClient", "SysoundCore", "SysoundProgramOutput", .product(name: "Logging", package: "swift-log")],
            path: "Sources/Programs/sysound-play",
            linkerSettings: [.unsafeFlags(["-Xlinker", "--no-export-dynamic"], .when(platforms: [.linux], configuration: .release))]),
        .executableTarget(
            name: "sysound-engine",
            dependencies: [
                "Sysound", "SysoundDaemon", "SysoundFeedback", "SysoundPlatform", "SysoundClient", "SysoundConfig",
                "SysoundState", "SysoundCore", "SysoundAudio", "SysoundHaptics", "SysoundLeds", "SysoundCLIOptions",
                "SysoundProgramOutput", "SysoundDesktop",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // Linked with the toolchain's default, gold. Not lld, though it packs
            // relative relocations (DT_RELR: 1.1 MB of `.rela.dyn` the loader
            // reads at start-up): it takes a function Foundation and
            // FoundationEssentials both carry from Foundation's archive (TOMLKit's
            // `import struct Foundation.Data` puts that archive on the line), and
            // with it Foundation's internationalization and ICU's data, 47 MB the
            // engine never calls (docs/memory.md). Not GNU ld, which packs them
            // too: Swift's objects have a writable `.rodata`, and GNU ld then
            // gives the executable no RELRO. Its symbols stay its own: the
            // toolchain's static-stdlib line exports every one (-export-dynamic),
            // 10 000 names no library looks up, whose tables (850 KB) every
            // symbol lookup at start-up touched (docs/memory.md).
            path: "Sources/Programs/sysound-engine",
            linkerSettings: [.unsafeFlags(["-Xlinker", "--no-export-dynamic"], .when(platforms: [.linux], configuration: .release))]),
        // Options both executables parse (serve, check), declared once.
        .target(
            name: "SysoundCLIOptions",
            dependencies: ["SysoundClient", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Sources/Programs/SysoundCLIOptions"),
        // What every executable but `sysound` writes the same way: its log
        // (standard error, or the journal under journald) and its error lines.
        .target(
            name: "SysoundProgramOutput",
            dependencies: ["CSystemd", .product(name: "Logging", package: "swift-log")],
            path: "Sources/Programs/SysoundProgramOutput"),
        // The project's reproducible generator of the default theme (Sounds/,
        // byte-identical on every run): the source the shipped sounds are
        // built from, so it stays with the product.
        .executableTarget(
            name: "sysound-soundgen", dependencies: ["SysoundCore", "CSndfile"], path: "Sources/Programs/sysound-soundgen"),

        // MARK: Tooling that is not product (under Tests/)
        // The client side of the real-kernel force-feedback and LED tests, beside the script that boots it (Tests/kernel/run.sh).
        .executableTarget(
            name: "sysound-ff-check", dependencies: ["SysoundHaptics", "SysoundLeds", "SysoundCore", "SysoundPlatform"],
            path: "Tests/kernel/sysound-ff-check"),
        // The benchmark (Tests/bench/run.sh), beside its script; its C target counts heap allocations.
        .target(name: "CBenchMalloc", path: "Tests/bench/CBenchMalloc"),
        .executableTarget(
            name: "sysound-bench",
            dependencies: [
                "Sysound", "SysoundFeedback", "SysoundAudio", "SysoundHaptics", "SysoundState", "SysoundClient",
                "SysoundConfig", "SysoundCore", "CBenchMalloc", "CPulse", "SysoundPlatform", "SysoundDaemon",
                "SysoundTesting", "CGio",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/bench/sysound-bench"),
        // Doubles of the product's protocols (a force-feedback device in
        // memory) for the tests and the bench: no XCTest, so the bench links it
        // too. The fixtures that drive processes and servers are SysoundTestSupport.
        .target(name: "SysoundTesting", dependencies: ["SysoundHaptics", "SysoundCore"], path: "Tests/SysoundTesting"),

        // MARK: Tests
        .testTarget(name: "SysoundCoreTests", dependencies: ["SysoundCore"]),
        // The loop (EventLoop/), sd-bus on a private session bus (Bus/, Tests/fixture/with-dbus.sh;
        // skips without one), real kernel scheduling (root in CI) and the rtkit mock on the
        // private system bus (Realtime/).
        .testTarget(
            name: "SysoundPlatformTests",
            dependencies: [
                "SysoundPlatform", "SysoundAudio", "SysoundCore", "CSystemd", "CSysoundShims", "SysoundTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(name: "SysoundConfigTests", dependencies: ["SysoundConfig", "SysoundCore"]),
        .testTarget(name: "SoundThemeTests", dependencies: ["SysoundConfig", "CSndfile"]),
        .testTarget(
            name: "SysoundStateTests",
            dependencies: ["SysoundState", "SysoundCore", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "SysoundDesktopTests", dependencies: ["SysoundDesktop", "SysoundCore"]),
        .testTarget(
            name: "SysoundProgramOutputTests",
            dependencies: ["SysoundProgramOutput", .product(name: "Logging", package: "swift-log")]),
        .testTarget(
            name: "SysoundAudioTests",
            dependencies: ["SysoundAudio", "SysoundCore", "SysoundPlatform", "SysoundTestSupport",
                           .product(name: "Logging", package: "swift-log")]),
        .testTarget(
            name: "SysoundHapticsTests",
            dependencies: [
                "SysoundHaptics", "SysoundCore", "SysoundPlatform", "SysoundTesting", "SysoundTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The LED layer on a directory tree shaped like sysfs and udev's database.
        .testTarget(
            name: "SysoundLedsTests",
            dependencies: ["SysoundLeds", "SysoundPlatform", .product(name: "Logging", package: "swift-log")]),
        .testTarget(
            name: "SysoundDaemonTests",
            dependencies: [
                "SysoundDaemon", "SysoundFeedback", "SysoundPlatform", "SysoundClient", "Sysound", "SysoundAudio", "SysoundConfig",
                "SysoundCore", "SysoundHaptics", "SysoundLeds", "SysoundState", "SysoundTestSupport", "SysoundTesting",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The subprocess and PulseAudio fixtures the two suites below share.
        // A plain `swift build` builds it too: XCTest only where it imports.
        .target(
            name: "SysoundTestSupport", dependencies: ["SysoundClient", "SysoundCore", "SysoundPlatform", .product(name: "Logging", package: "swift-log")],
            path: "Tests/SysoundTestSupport"),
        // Real sound through a real PulseAudio server (Tests/fixture/with-pulse.sh).
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["SysoundTestSupport", "SysoundClient", "SysoundCore", "SysoundAudio", "SysoundPlatform", "COpenAL", "CSndfile"]),
        // Hostile files, faults, load, access against a real daemon (Tests/ReliabilityTests; issue 9).
        .testTarget(
            name: "ReliabilityTests",
            dependencies: ["SysoundTestSupport", "SysoundClient", "SysoundCore"]),
    ],
    swiftLanguageModes: [.v6]
)
