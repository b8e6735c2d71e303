/// The connection state of an extension that keeps nothing per connection: it only makes each
/// transaction's object.
///
/// ```swift
/// func makeConnectionState(_ registration: ExtensionRegistration) -> any ExtensionConnectionState {
///     StatelessConnectionState { context in AuditTransaction(context: context, settings: self) }
/// }
/// ```
public final class StatelessConnectionState: ExtensionConnectionState {
    private let makeTransaction: (ExtensionContext) -> any ExtensionTransaction

    /// A state whose transactions `makeTransaction` makes.
    public init(_ makeTransaction: @escaping (ExtensionContext) -> any ExtensionTransaction) {
        self.makeTransaction = makeTransaction
    }

    /// The object `makeTransaction` makes for `context`.
    public func makeTransaction(_ context: ExtensionContext) -> any ExtensionTransaction {
        makeTransaction(context)
    }
}
