// sysound-soundgen: synthesizes the default theme into a directory.
//
//   swift run sysound-soundgen Sounds
//
// Output is deterministic: the same sources give byte-identical files. The
// theme index (Sounds/index.toml) is written by hand and names these files.
import Foundation

let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "--help" || arguments.first == "-h" || arguments.count != 1 {
    let usage = """
        usage: sysound-soundgen OUTPUT_DIR
        Writes the default theme's sounds (48 kHz mono 16-bit WAV) into OUTPUT_DIR,
        e.g. `swift run sysound-soundgen Sounds`. Existing files of the same names
        are replaced; other files are left alone.

        """
    if arguments.count == 1 { print(usage, terminator: "") } else { FileHandle.standardError.write(Data(usage.utf8)) }
    exit(arguments.count == 1 ? 0 : 2)
}

let directory = arguments.first!
do {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
} catch {
    FileHandle.standardError.write(Data("sysound-soundgen: cannot create output directory \(directory): \(error.localizedDescription)\n".utf8))
    exit(1)
}

var failed = false
for recipe in Recipes.all {
    let path = (directory as NSString).appendingPathComponent(recipe.name + ".wav")
    do {
        let clip = recipe.render()
        let samples = try Mastering.master(clip, name: recipe.name)
        try SoundFileWriter.writeWAV(samples, to: path)
        print(String(format: "%@  %4.0f ms%@", path, clip.durationMs, recipe.loopable ? "  (loop)" : ""))
    } catch {
        FileHandle.standardError.write(Data("sysound-soundgen: \(error)\n".utf8))
        failed = true
    }
}
exit(failed ? 1 : 0)
