import COpenAL

/// The process-wide lock around OpenAL. OpenAL's current context is global to
/// the process, so every engine takes this lock for its (short) AL calls and
/// makes its own context current if another engine's is.
enum ALLock {
    static let condition = PriorityInheritingCondition()
    /// The context made current last, so a switch costs one call only when needed.
    nonisolated(unsafe) static var current: OpaquePointer?
}
