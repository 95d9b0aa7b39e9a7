#if canImport(Glibc)
import Glibc
#endif
import SysoundCore
import SystemPackage

/// Reads and writes the control files of one state directory.
///
/// Reading never trusts the file: it must be a regular file, is read with a
/// bound, and garbage is reported, not applied. Writing is atomic (a temp file
/// in the same directory, fsync, rename), so a reader sees the old content or
/// the new one, never half of either.
package struct ControlFiles: Sendable {
    package let directory: StateDirectory

    package init(directory: StateDirectory) {
        self.directory = directory
    }

    /// What reading one control file gave.
    package enum ReadResult: Equatable, Sendable {
        /// The file does not exist: its default applies.
        case missing
        /// The file's content (not yet parsed).
        case content(String)
    }

    /// Reads a small text file of the state directory (trimmed), such as the
    /// daemon's lock file holding its PID; nil if it does not exist.
    package static func readSmallFile(_ path: String) throws(ControlFileError) -> String? {
        guard case .content(let text) = try readBounded(path) else { return nil }
        return ControlValue.trimmed(text)
    }

    /// Reads one control file's raw content.
    package func read(_ control: ControlFile) throws(ControlFileError) -> ReadResult {
        try Self.readBounded(directory.file(control))
    }

    /// Reads a file of at most `limit` bytes of UTF-8.
    ///
    /// Opens with O_NONBLOCK|O_NOFOLLOW so a FIFO or a symlink planted in
    /// the directory cannot block or redirect the reader.
    static func readBounded(_ path: String, limit: Int = ControlFile.maximumLength) throws(ControlFileError) -> ReadResult {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(
                path, .readOnly, options: [.nonBlocking, .noFollow, .closeOnExec])
        } catch {
            let e = Errno(error)
            if e == .noSuchFileOrDirectory { return .missing }
            throw ControlFileError(path: path, problem: .unreadable(e))
        }
        // Closing a file only read loses nothing.
        defer { try? fd.close() }
        var st = stat()
        guard fstat(fd.rawValue, &st) == 0 else {
            throw ControlFileError(path: path, problem: .unreadable(Errno(rawValue: errno)))
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw ControlFileError(path: path, problem: .notARegularFile) }
        guard st.st_size <= limit else {
            throw ControlFileError(path: path, problem: .tooLarge(bytes: Int(st.st_size)))
        }
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        let count: Int
        do {
            count = try bytes.withUnsafeMutableBytes { try fd.read(into: $0) }
        } catch {
            throw ControlFileError(path: path, problem: .unreadable(Errno(error)))
        }
        guard count <= limit else {
            throw ControlFileError(path: path, problem: .tooLarge(bytes: count))
        }
        guard let text = String(validating: bytes[..<count], as: UTF8.self) else {
            throw ControlFileError(path: path, problem: .notText)
        }
        return .content(text)
    }

    /// Reads one control file and applies it to `state`. On any problem the
    /// previous value in `state` stays and the error says why.
    package func load(_ control: ControlFile, into state: inout SystemState) throws(ControlFileError) {
        switch try read(control) {
        case .missing:
            control.reset(in: &state)
        case .content(let text):
            do {
                try control.apply(text, to: &state)
            } catch {
                throw ControlFileError(path: directory.file(control), problem: .badValue(error))
            }
        }
    }

    /// Reads every control file. Problems are returned beside the state, which
    /// keeps `previous`'s value for each file that could not be read.
    package func loadAll(previous: SystemState = .defaults) -> (state: SystemState, problems: [ControlFileError]) {
        var state = previous
        var problems: [ControlFileError] = []
        for control in ControlFile.allCases {
            do { try load(control, into: &state) } catch { problems.append(error) }
        }
        return (state, problems)
    }

    /// Writes one value atomically: temp file in the same directory, fsync,
    /// rename over the old file. On failure (disk full, permissions) the old
    /// file stays whole and the temp file is removed.
    package func write(_ control: ControlFile, _ content: String) throws(ControlFileError) {
        try write(named: control.fileName, content)
    }

    /// Writes any small file of the state directory the same atomic way
    /// (the control files, and records beside them such as `LockOrigin`'s).
    func write(named name: String, _ content: String) throws(ControlFileError) {
        let path = directory.file(name)
        do {
            try directory.prepare()
        } catch {
            throw ControlFileError(path: path, problem: .directory(error))
        }
        var template = Array((directory.file("." + name + ".XXXXXX")).utf8CString)
        let raw = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard raw >= 0 else { throw ControlFileError(path: path, problem: .unwritable(Errno(rawValue: errno))) }
        let tempPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let fd = FileDescriptor(rawValue: raw)
        do {
            try fd.writeAll((content + "\n").utf8)
            guard fchmod(raw, 0o644) == 0, fsync(raw) == 0 else { throw Errno(rawValue: errno) }
            try fd.close()
        } catch {
            // The write already failed and is thrown below; the temporary file goes either way.
            try? fd.close()
            unlink(tempPath)
            throw ControlFileError(path: path, problem: .unwritable(Errno(error)))
        }
        guard rename(tempPath, path) == 0 else {
            let e = Errno(rawValue: errno)
            unlink(tempPath)
            throw ControlFileError(path: path, problem: .unwritable(e))
        }
    }

    /// Writes the canonical content of `control`'s value in `state`.
    package func write(_ control: ControlFile, from state: SystemState) throws(ControlFileError) {
        try write(control, control.content(of: state))
    }
}

/// A control file that could not be read, parsed or written.
package struct ControlFileError: Error, Equatable, Sendable, CustomStringConvertible {
    package enum Problem: Equatable, Sendable {
        case unreadable(Errno)
        case notARegularFile
        case tooLarge(bytes: Int)
        case notText
        case badValue(ControlValueError)
        case unwritable(Errno)
        case directory(StateDirectoryError)
    }

    package var path: String
    package var problem: Problem

    package var description: String {
        switch problem {
        case .unreadable(let e): "\(path): cannot read (\(e)); the last good value stays"
        case .notARegularFile: "\(path): not a regular file; replace it with a file holding the value"
        case .tooLarge(let n): "\(path): \(n) bytes is not a setting (at most \(ControlFile.maximumLength)); the last good value stays"
        case .notText: "\(path): not UTF-8 text; the last good value stays"
        case .badValue(let e): "\(path): \(e); the last good value stays"
        case .unwritable(let e): "\(path): cannot write (\(e)); the old value is unchanged"
        case .directory(let e): "\(e)"
        }
    }
}

extension Errno {
    /// swift-system throws untyped errors that are always `Errno`.
    init(_ error: any Error) {
        self = error as? Errno ?? .ioError
    }
}
