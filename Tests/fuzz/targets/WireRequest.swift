// libFuzzer target: the daemon's request parser (`Request(parsing:)`), which
// reads datagrams from any process that can reach the socket.
// Property: a parsed request encodes to a datagram that parses back equal.
import SysoundCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWireRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    do {
        let request = try Request(parsing: bytes)
        let again = try Request(parsing: request.encoded())
        if again != request {
            fatalError("round trip changed the request: \(request) -> \(request.text) -> \(again)")
        }
    } catch {
        // Every refusal must say something and map to a wire reply.
        if error.description.isEmpty { fatalError("empty parse error for \(Array(bytes))") }
        _ = error.reply.encoded()
    }
    return 0
}
