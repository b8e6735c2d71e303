/// The exit statuses `coffer` documents; scripts switch on these numbers.
enum ExitStatus: Int32, Sendable, CaseIterable {
    /// The command did what was asked.
    case success = 0
    /// Any failure not covered by a more specific status.
    case failure = 1
    /// The command line was malformed: unknown option, missing argument, conflicting options.
    case usage = 2
    /// The key or passphrase is wrong, missing or unusable (including a damaged key file).
    case keyProblem = 3
    /// The file is damaged, not a database, or of an unsupported format.
    case notADatabase = 4
    /// A file could not be read or written (missing, permissions, disk full).
    case io = 5
    /// `verify` ran to the end and found rows that do not read back.
    case verificationFailed = 6
    /// The user interrupted the command (Ctrl-C); partial output files were removed.
    case cancelled = 130

    /// One line per status, for the root command's help text.
    static var documentation: String {
        """
        Exit status:
          0    success
          1    failure not covered below
          2    usage error (unknown option, missing argument, conflicting options)
          3    wrong, missing or unusable key or passphrase (incl. a damaged key file)
          4    damaged file, not a database, or unsupported format
          5    I/O error (file missing, permission denied, disk full)
          6    verify found rows that do not read back
          130  cancelled with Ctrl-C (partial output removed)

        Passphrases are never taken from command-line arguments: use --passphrase-env VAR, \
        --passphrase-stdin (first line of standard input), or type them at the prompt.
        """
    }
}
