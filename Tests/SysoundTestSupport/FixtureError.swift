/// A test fixture that could not be set up or did not behave: a failure of the
/// test's surroundings, said in words, as opposed to an assertion's.
public struct FixtureError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
