import Glibc
import XCTest
@testable import SysoundPlatform

/// Zero pages given back: the kernel no longer holds them, they still read
/// as zeros, and every page with a byte of data is kept as it was.
final class ZeroPagesTests: XCTestCase {
    func testOnlyAllZeroPagesAreGivenBackAndNothingReadsDifferently() throws {
        let page = ZeroPages.pageSize, pages = 16, size = pages * page
        let base = try XCTUnwrap(mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        defer { munmap(base, size) }
        memset(base, 0, size)  // every page resident, as calloc's memset leaves a block
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        let data = [3: 0, 9: page - 1, 10: 17]  // page → offset of its one non-zero byte
        for (p, offset) in data { bytes[p * page + offset] = UInt8(p) }
        XCTAssertEqual(resident(base, pages), Array(repeating: true, count: pages))

        let released = try ZeroPages.release(UnsafeMutableRawBufferPointer(start: base, count: size))

        XCTAssertEqual(released, (pages - data.count) * page)
        XCTAssertEqual(resident(base, pages), (0..<pages).map { data[$0] != nil }, "only the pages with data stay resident")
        for p in 0..<pages {
            for offset in [0, 17, page - 1] {
                XCTAssertEqual(bytes[p * page + offset], data[p] == offset ? UInt8(p) : 0, "page \(p), byte \(offset)")
            }
        }
        // A given-back page is memory again when written, and keeps what is written.
        bytes[5 * page] = 42
        XCTAssertTrue(resident(base, pages)[5])
        XCTAssertEqual(bytes[5 * page], 42)
    }

    func testARangeNotOnPageBoundariesKeepsItsPartialPages() throws {
        let page = ZeroPages.pageSize, size = 4 * page
        let base = try XCTUnwrap(mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        defer { munmap(base, size) }
        memset(base, 0, size)
        // From the middle of page 0 to the middle of page 3: pages 1 and 2 are whole.
        let released = try ZeroPages.release(UnsafeMutableRawBufferPointer(start: base + page / 2, count: 3 * page))
        XCTAssertEqual(released, 2 * page)
        XCTAssertEqual(resident(base, 4), [true, false, false, true])
    }

    /// mincore(2): which pages of the range the kernel holds.
    private func resident(_ base: UnsafeMutableRawPointer, _ pages: Int) -> [Bool] {
        var vector = [UInt8](repeating: 0, count: pages)
        XCTAssertEqual(mincore(base, pages * ZeroPages.pageSize, &vector), 0, "mincore: errno \(errno)")
        return vector.map { $0 & 1 != 0 }
    }
}
