import Glibc

/// Gives the kernel back the pages of private anonymous memory that hold
/// only zeros (madvise MADV_DONTNEED). Such a page reads as zeros again
/// afterwards (the kernel's shared zero page) and costs memory again only
/// when it is written: the contents do not change, the resident memory does.
///
/// The caller must make sure no thread writes the range meanwhile: a write
/// between a page's test and its release would be lost.
package enum ZeroPages {
    package static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// Releases every all-zero page of `range` (page-aligned inward) and
    /// returns how many bytes were released; runs of such pages go to the
    /// kernel in one call each.
    @discardableResult
    package static func release(_ range: UnsafeMutableRawBufferPointer) throws(ZeroPagesError) -> Int {
        guard let base = range.baseAddress else { return 0 }
        let page = UInt(pageSize)
        let first = (UInt(bitPattern: base) + page - 1) & ~(page - 1)
        let last = (UInt(bitPattern: base) + UInt(range.count)) & ~(page - 1)
        guard first < last else { return 0 }
        var released = 0
        var run: UInt?
        func flush(until end: UInt) throws(ZeroPagesError) {
            guard let start = run else { return }
            run = nil
            guard madvise(UnsafeMutableRawPointer(bitPattern: start), Int(end - start), MADV_DONTNEED) == 0 else {
                throw ZeroPagesError(errno: errno, start: start, length: Int(end - start))
            }
            released += Int(end - start)
        }
        var address = first
        while address < last {
            if isZero(UnsafeRawPointer(bitPattern: address)!) {
                if run == nil { run = address }
            } else {
                try flush(until: address)
            }
            address += page
        }
        try flush(until: last)
        return released
    }

    /// Whether a whole page holds only zeros, word by word.
    private static func isZero(_ page: UnsafeRawPointer) -> Bool {
        let words = page.assumingMemoryBound(to: UInt64.self)
        var any: UInt64 = 0
        for i in 0..<(pageSize / 8) { any |= words[i] }
        return any == 0
    }
}

/// madvise(MADV_DONTNEED) refused a range.
package struct ZeroPagesError: Error, CustomStringConvertible {
    package let errno: Int32
    package let start: UInt
    package let length: Int
    package var description: String {
        "madvise(MADV_DONTNEED) of \(length) bytes at 0x\(String(start, radix: 16)): \(String(cString: strerror(errno)))"
    }
}
