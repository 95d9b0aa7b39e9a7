// Must NOT compile (Tests/library/run.sh expects these errors): even an app
// that imports the library's core module by name cannot reach the wire
// protocol's types, which are `package` to sysound.
import Sysound
import SysoundCore

func sendsRawDatagrams() -> Any {
    let fields: WireFields = [:]
    return (fields, Request.ping)
}
