/// A test fixture that could not be set up or did not behave: a failure of the
/// test's surroundings, said in words, as opposed to an assertion's.
package struct FixtureError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
