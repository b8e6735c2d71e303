/// A view of the rows that match a full-text query, kept live as rows change (YapDatabase's
/// `YapDatabaseSearchResultsView`): the results list of a search field.
///
/// ```swift
/// let results = SearchResultsView(
///     fullTextSearchName: "notes_fts",
///     source: .parentView("notesByDate"),
///     snippetOptions: .init(startMatch: "[", endMatch: "]"))
/// try database.register(results, withName: "noteResults")
///
/// try connection.readWrite { tx in
///     try tx.extension("noteResults", as: SearchResultsViewTransaction.self).performSearch(for: "encrypt*")
/// }
/// ```
///
/// It takes one of two forms. Over a parent view (``Source/parentView(_:)``) it shows the
/// parent's rows that match, in the parent's groups and order, like a ``FilteredView`` whose
/// filter is the query. With its own grouping and sorting (``Source/grouping(_:sorting:)``) it
/// shows every matching row, grouped and sorted like an ``AutoView``.
///
/// ``SearchResultsViewTransaction/performSearch(for:)`` replaces the results in a read-write
/// transaction; the query is part of the view, so every connection sees it (and a persistent
/// view keeps it across launches). Rows written after the search appear when they match, and
/// leave when they no longer do, in the same transaction. Each result can carry a snippet of its
/// matching text.
public struct SearchResultsView: DatabaseExtension {
    /// Where the rows of a search view come from, and how they are grouped and ordered.
    public enum Source: Sendable {
        /// The matching rows of the view registered under this name, in its groups and order.
        case parentView(String)
        /// Every matching row, put in groups by the grouping (nil leaves it out) and sorted.
        case grouping(ViewGrouping, sorting: ViewSorting)
        /// Every matching row, put in groups by the grouping, best match first: ordered by BM25
        /// relevance with the columns weighted as ``FullTextSearchTransaction/enumerateKeysByRelevance(matching:columnWeights:_:)``
        /// weighs them (needs FTS4).
        case ranked(ViewGrouping, columnWeights: [String: Double] = [:])
    }

    /// The registered name of the ``FullTextSearch`` whose table the queries run on.
    public let fullTextSearchName: String
    /// Where the rows come from.
    public let source: Source
    /// How each result's snippet is made; nil keeps no snippets.
    public let snippetOptions: FullTextSearch.SnippetOptions?
    /// The groups (of the parent, or of the grouping) whose rows can be results.
    public let allowedGroups: AllowList<String>
    /// The collections whose rows can be results.
    public let allowedCollections: AllowList<String>
    /// A caller-chosen version: registering with a different tag rebuilds the view (and forgets
    /// its query).
    public let versionTag: String
    /// Whether the view keeps its pages, snippets and query in the file, or only in memory.
    public let isPersistent: Bool
    /// From how many results on a persistent, unranked view checks a written row in its one-row
    /// probe table instead of walking the query's doclist in the search's table.
    var probeThreshold = 2_000

    /// A search view over the full-text search registered as `fullTextSearchName`.
    public init(
        fullTextSearchName: String, source: Source, snippetOptions: FullTextSearch.SnippetOptions? = nil,
        allowedGroups: AllowList<String> = .all, allowedCollections: AllowList<String> = .all,
        versionTag: String = "", isPersistent: Bool = true
    ) {
        self.fullTextSearchName = fullTextSearchName
        self.source = source
        self.snippetOptions = snippetOptions
        self.allowedGroups = allowedGroups
        self.allowedCollections = allowedCollections
        self.versionTag = versionTag
        self.isPersistent = isPersistent
    }

    /// "SearchResultsView".
    public var kind: String { "SearchResultsView" }

    /// The full-text search, and the parent view when there is one.
    public var dependencies: Set<String> {
        // An empty name is no registration: createTables and populate report it by name instead.
        var names: Set<String> = fullTextSearchName.isEmpty ? [] : [fullTextSearchName]
        if case .parentView(let parent) = source, !parent.isEmpty { names.insert(parent) }
        return names
    }

    /// The page, map, result (snippet and relevance) and probe tables of a persistent view; none
    /// for one in memory.
    public func tableNames(registeredName: String) -> [String] {
        guard isPersistent else { return [] }
        return [
            AutoView.pageTableName(registeredName: registeredName),
            AutoView.mapTableName(registeredName: registeredName),
            Self.resultTableName(registeredName: registeredName),
            FullTextSearch.tableName(registeredName: Self.probeName(registeredName: registeredName)),
        ]
    }

    /// ``allowedCollections``.
    public var derivedCollections: AllowList<String>? { allowedCollections }

    /// The view's page cache for one connection.
    public func makeConnectionState(_ registration: ExtensionRegistration) -> any ExtensionConnectionState {
        ViewConnectionState(registration: registration, isPersistent: isPersistent) { context, state in
            SearchResultsViewMaintainer(
                SearchResultsViewTransaction(context: context, state: state, configuration: self))
        }
    }

    /// The table of each result's snippet and relevance, for a view registered as `registeredName`.
    public static func resultTableName(registeredName: String) -> String { "view_\(registeredName)_result" }

    /// The name whose full-text table (`fts_<name>`) is the probe of a view registered as
    /// `registeredName`: an FTS table of the search's definition that holds one row at a time.
    static func probeName(registeredName: String) -> String { registeredName + "_probe" }

    /// The parent view's name, or nil for the forms with their own grouping.
    var parentName: String? {
        if case .parentView(let parent) = source { return parent }
        return nil
    }

    /// The column weights of the ranked form, nil for the others.
    var relevanceWeights: [String: Double]? {
        if case .ranked(_, let weights) = source { return weights }
        return nil
    }

    /// Whether each result keeps a snippet or a relevance.
    var keepsResultInfo: Bool { snippetOptions != nil || relevanceWeights != nil }
}

extension SearchResultsView: FollowingView {
    /// The parent's name; "" for the form with its own grouping, which no registration can be
    /// named, so no view's changes reach it.
    var parentViewName: String { parentName ?? "" }
}
