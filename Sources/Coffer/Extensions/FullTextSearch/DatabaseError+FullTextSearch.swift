extension DatabaseError.Code {
    /// The linked SQLite lacks a feature the request needs (for example the FTS5 module in
    /// SQLCipher 3.4.1).
    public static let unsupportedFeature = DatabaseError.Code(rawValue: "unsupportedFeature")
}
