extension Hooks {
    /// What a modification did to a row (YapDatabase's `YapDatabaseHooksBitMask`).
    ///
    /// A write sets ``inserted`` or ``updated`` with ``objectChanged`` and/or ``metadataChanged``.
    /// An explicit touch (`touchObject`, `touchMetadata`, `touchRow`) sets only ``objectTouched``
    /// and/or ``metadataTouched``: neither inserted nor updated, since no value changed.
    public struct Flags: OptionSet, Sendable, Hashable {
        /// The bits.
        public let rawValue: Int

        /// Creates flags from their bits.
        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        /// A new row (object and metadata are both new, so ``objectChanged`` and
        /// ``metadataChanged`` come with it).
        public static let inserted = Flags(rawValue: 1 << 0)
        /// An existing row was written (never set for a touch).
        public static let updated = Flags(rawValue: 1 << 1)
        /// The object was written.
        public static let objectChanged = Flags(rawValue: 1 << 2)
        /// The metadata was written.
        public static let metadataChanged = Flags(rawValue: 1 << 3)
        /// The object was touched (marked changed without a write).
        public static let objectTouched = Flags(rawValue: 1 << 4)
        /// The metadata was touched.
        public static let metadataTouched = Flags(rawValue: 1 << 5)
        /// Object or metadata touched.
        public static let touched: Flags = [.objectTouched, .metadataTouched]
    }
}
