/// What a light shows among the requests that hold it: the highest
/// priority, and among equals the latest; when that one ends the next shows;
/// nothing (off) when none holds it. Pure, so that every case is tested.
package struct LedArbiter<Request: Sendable>: Sendable {
    struct Held: Sendable {
        var id: UInt64
        var priority: Int
        var request: Request
    }

    private var held: [Held] = []

    package init() {}

    package var isEmpty: Bool { held.isEmpty }
    package var count: Int { held.count }

    package mutating func add(id: UInt64, priority: Int, _ request: Request) {
        held.append(Held(id: id, priority: priority, request: request))
    }

    /// Removes a request; false when it was not held.
    @discardableResult
    package mutating func remove(id: UInt64) -> Bool {
        guard let index = held.firstIndex(where: { $0.id == id }) else { return false }
        held.remove(at: index)
        return true
    }

    package func contains(id: UInt64) -> Bool { held.contains { $0.id == id } }

    /// The request shown now, and its id.
    package var shown: (id: UInt64, request: Request)? {
        // Later entries win ties: `max` keeps the last of equal ones when compared with <=.
        var best: Held?
        for entry in held where best == nil || entry.priority >= best!.priority { best = entry }
        return best.map { ($0.id, $0.request) }
    }
}
