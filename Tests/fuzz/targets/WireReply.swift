// libFuzzer target: the client's reply parser (`Reply(parsing:)`): the CLI and
// the library must survive whatever a daemon (or an impostor on the socket)
// sends. Property: the encoding of a parsed reply parses, and from then on
// encoding and parsing is a fixed point. (The first round may differ: control
// characters in a message become spaces, and the parser drops the spaces
// that lead a message.)
import SysoundCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWireReply(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let reply = try? Reply(parsing: bytes) else { return 0 }
    let encoded = reply.encoded()
    let second: Reply
    do { second = try Reply(parsing: encoded) } catch {
        fatalError("the encoding of a parsed reply does not parse: \(error): \(String(decoding: encoded, as: UTF8.self))")
    }
    let third = try? Reply(parsing: second.encoded())
    if third != second {
        fatalError("reply encoding is not stable: \(String(decoding: second.encoded(), as: UTF8.self))")
    }
    return 0
}
