/// Hooks keep nothing per connection; this only makes the per-transaction objects.
final class HooksConnectionState: ExtensionConnectionState {
    let hooks: Hooks

    init(hooks: Hooks) {
        self.hooks = hooks
    }

    func makeTransaction(_ context: ExtensionContext) -> any ExtensionTransaction {
        HooksTransaction(context: context, hooks: hooks)
    }
}
