/// Why the fixture generator stopped; the message says what to do.
struct GeneratorError: Error, CustomStringConvertible {
    /// What went wrong.
    var description: String

    /// Creates an error with a message.
    init(_ description: String) {
        self.description = description
    }
}
