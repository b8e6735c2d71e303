/// A rule that says which elements are allowed — everything, a whitelist, a blacklist or a predicate —
/// the equivalent of YapDatabase's `YapWhitelistBlacklist`.
///
/// Extensions use it to restrict the collections they look at (`allowedCollections`), so rows in
/// other collections are skipped without running the extension's closures:
///
/// ```swift
/// let collections: AllowList<String> = .only(["notes", "tags"])
/// collections.isAllowed("notes")    // true
/// collections.isAllowed("drafts")   // false
/// ```
public struct AllowList<Element: Hashable & Sendable>: Sendable {
    /// How the list decides, as a value a caller can switch on.
    public enum Rule: Sendable {
        /// Every element is allowed.
        case all
        /// Only these elements are allowed (a whitelist).
        case only(Set<Element>)
        /// Every element except these is allowed (a blacklist).
        case allExcept(Set<Element>)
        /// An element is allowed when the predicate returns `true`.
        case filter(@Sendable (Element) -> Bool)
    }

    /// The rule this list applies.
    public let rule: Rule

    /// Creates a list that applies `rule`.
    public init(_ rule: Rule) {
        self.rule = rule
    }

    /// A list that allows every element.
    public static var all: AllowList { AllowList(.all) }

    /// A whitelist: only the given elements are allowed; an empty set allows nothing.
    public static func only(_ elements: Set<Element>) -> AllowList {
        AllowList(.only(elements))
    }

    /// A blacklist: every element except the given ones is allowed; an empty set allows everything.
    public static func allExcept(_ elements: Set<Element>) -> AllowList {
        AllowList(.allExcept(elements))
    }

    /// A list that asks `isAllowed` about each element.
    ///
    /// The predicate may run on any thread and many times for the same element, so it should be
    /// pure and cheap.
    public static func filter(_ isAllowed: @escaping @Sendable (Element) -> Bool) -> AllowList {
        AllowList(.filter(isAllowed))
    }

    /// Whether `element` is allowed.
    ///
    /// - Complexity: O(1) on average for `.all`, `.only` and `.allExcept`; the predicate's cost for `.filter`.
    public func isAllowed(_ element: Element) -> Bool {
        switch rule {
        case .all:
            return true
        case .only(let allowed):
            return allowed.contains(element)
        case .allExcept(let denied):
            return !denied.contains(element)
        case .filter(let predicate):
            return predicate(element)
        }
    }

    /// Whether the list allows every element without looking at it, so callers can skip the check.
    public var allowsEverything: Bool {
        switch rule {
        case .all:
            return true
        case .allExcept(let denied):
            return denied.isEmpty
        case .only, .filter:
            return false
        }
    }
}

extension AllowList: CustomStringConvertible {
    /// A short summary naming the rule and how many elements it lists, never the elements themselves.
    public var description: String {
        switch rule {
        case .all:
            return "AllowList.all"
        case .only(let allowed):
            return "AllowList.only(count: \(allowed.count))"
        case .allExcept(let denied):
            return "AllowList.allExcept(count: \(denied.count))"
        case .filter:
            return "AllowList.filter"
        }
    }
}
