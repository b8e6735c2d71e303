import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a secret line from the terminal with echo turned off, like `readpassphrase(3)`.
enum TerminalPrompt {
    /// Shows `prompt` on standard error and reads one line from standard input without echo.
    ///
    /// The terminal's settings are restored afterwards, and also when Ctrl-C ends the process
    /// during the prompt (``Interruption`` restores them before exiting).
    /// - Returns: The line, or nil at the end of input.
    /// - Throws: ``CLIError`` `.keyProblem` when the terminal cannot be configured; `.io`.
    static func readSecretLine(prompt: String, from input: LineReader) throws -> [UInt8]? {
        var original = termios()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else {
            throw CLIError(.keyProblem, "cannot read a passphrase: standard input is not a usable terminal")
        }
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ICANON)
        Interruption.shared.rememberTerminal(original)
        defer {
            _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
            Interruption.shared.rememberTerminal(nil)
            StandardStreams.writeError("\n")
        }
        StandardStreams.writeError(prompt)
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent) == 0 else {
            throw CLIError(.keyProblem, "cannot turn off the terminal's echo to read a passphrase")
        }
        return try input.readLine()
    }
}
