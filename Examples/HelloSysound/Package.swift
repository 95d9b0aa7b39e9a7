// swift-tools-version:6.1
// An app that uses sysound as any app would: a package of its own that
// depends on it by path and sees only the `Sysound` library's public API.
import PackageDescription

// Named, because a path dependency is otherwise known by its directory's name.
// An app that always has a daemon may leave the embedded engine out
// (`traits: []`); Tests/library/run.sh builds it so too
// (SYSOUND_EXAMPLE_CLIENT_ONLY=1).
var dependencies: [Package.Dependency] = [
    Context.environment["SYSOUND_EXAMPLE_CLIENT_ONLY"] != nil
        ? .package(name: "sysound", path: "../..", traits: []) : .package(name: "sysound", path: "../..")
]
var targets: [Target] = [
    .executableTarget(name: "HelloSysound", dependencies: [.product(name: "Sysound", package: "sysound")]),
]

// Tests/library/run.sh's checks (SYSOUND_EXAMPLE_CHECKS=1): the DocC
// catalog's examples, extracted into Checks/DocSnippets, must compile, and
// Checks/WireIsHidden, which names the wire protocol's types, must not.
if Context.environment["SYSOUND_EXAMPLE_CHECKS"] != nil {
    // The catalog shows how an app passes its own swift-log Logger.
    dependencies.append(.package(url: "https://github.com/apple/swift-log", from: "1.6.0"))
    targets += [
        .target(
            name: "DocSnippets",
            dependencies: [.product(name: "Sysound", package: "sysound"), .product(name: "Logging", package: "swift-log")],
            path: "Checks/DocSnippets"),
        .target(name: "WireIsHidden", dependencies: [.product(name: "Sysound", package: "sysound")], path: "Checks/WireIsHidden"),
    ]
}

let package = Package(
    name: "HelloSysound",
    platforms: [.macOS(.v13)],
    dependencies: dependencies,
    targets: targets,
    swiftLanguageModes: [.v6]
)
