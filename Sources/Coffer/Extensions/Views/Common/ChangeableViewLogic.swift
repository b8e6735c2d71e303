/// The part of a view a transaction can change (grouping and sorting, a filter, the tag):
/// read from the registration's shared value when the transaction starts, replaced inside it,
/// and shared with every connection once it commits.
struct ChangeableViewLogic<Logic: Sendable> {
    private let shared: Locked<Logic>
    /// The logic this transaction uses.
    private(set) var current: Logic
    private var changed = false

    /// The logic the registration's connections share, starting from `initial`.
    init(in registration: ExtensionRegistration, initial: Logic) {
        // The value is made once per registration with this type, so the lookup cannot fail;
        // a private copy would only stop other connections from seeing a change.
        shared = (try? registration.sharedValue(named: "logic") { Locked(initial) }) ?? Locked(initial)
        current = shared.withLock { $0 }
    }

    /// Uses `logic` from now on in this transaction.
    mutating func replace(with logic: Logic) {
        current = logic
        changed = true
    }

    /// Shares the logic this transaction changed, once it committed.
    func commit() {
        guard changed else { return }
        shared.withLock { $0 = current }
    }
}
