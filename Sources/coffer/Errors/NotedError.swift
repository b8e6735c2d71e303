/// An error with a note about what the command kept despite it ("1000 row(s) imported before
/// the failure were kept"), rendered as the error's own line with the note appended.
///
/// The note stays on the error's line (and in the `message` of a `--json` report) instead of
/// a line of its own, so a failure is always exactly one line or one JSON object.
struct NotedError: Error {
    /// The failure; decides the code and the exit status.
    var underlying: any Error
    /// What was kept or done before it.
    var note: String
}
