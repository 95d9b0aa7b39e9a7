import Foundation
import SysoundConfig

/// The package root, from this file's path.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

/// A search that finds the source tree's data and no user or system config.
func isolatedSearch(_ extra: [String: String] = [:]) -> ConfigurationSearch {
    ConfigurationSearch(
        environment: ["SYSOUND_DATA_DIR": packageRoot, "HOME": "/nonexistent-home"].merging(extra) { $1 },
        executablePath: nil)
}

/// A fresh temporary directory, removed by the caller's defer.
func makeTemporaryDirectory() throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sysound-config-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

func write(_ text: String, to path: String) throws {
    try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try text.write(toFile: path, atomically: true, encoding: .utf8)
}
