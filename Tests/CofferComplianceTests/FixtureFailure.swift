/// A fixture or manifest problem found by the suite; the message names the file and what is wrong.
struct FixtureFailure: Error, Sendable, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
