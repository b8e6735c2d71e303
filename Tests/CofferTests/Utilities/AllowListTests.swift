import Coffer
import PropertyBased
import Testing

@Suite("AllowList")
struct AllowListTests {
    @Test func allAllowsEverything() {
        let list = AllowList<String>.all
        #expect(list.isAllowed("notes"))
        #expect(list.isAllowed(""))
        #expect(list.allowsEverything)
        #expect(list.description == "AllowList.all")
    }

    @Test func onlyIsAWhitelist() {
        let list = AllowList<String>.only(["notes", "tags"])
        #expect(list.isAllowed("notes"))
        #expect(list.isAllowed("tags"))
        #expect(!list.isAllowed("drafts"))
        #expect(!list.isAllowed(""))
        #expect(!list.allowsEverything)
        #expect(!AllowList<String>.only([]).isAllowed("notes"))
    }

    @Test func allExceptIsABlacklist() {
        let list = AllowList<String>.allExcept(["secrets"])
        #expect(list.isAllowed("notes"))
        #expect(!list.isAllowed("secrets"))
        #expect(!list.allowsEverything)
        #expect(AllowList<String>.allExcept([]).allowsEverything)
    }

    @Test func filterAsksThePredicate() {
        let list = AllowList<String>.filter { $0.hasPrefix("public.") }
        #expect(list.isAllowed("public.notes"))
        #expect(!list.isAllowed("private.notes"))
        #expect(!list.allowsEverything)
        #expect(list.description == "AllowList.filter")
    }

    @Test func descriptionNamesTheRuleButNotTheElements() {
        let list = AllowList<String>.only(["top-secret-collection"])
        #expect(list.description == "AllowList.only(count: 1)")
        #expect(!AllowList<String>.allExcept(["hidden"]).description.contains("hidden"))
    }

    @Test func ruleCanBeInspected() {
        guard case .allExcept(let denied) = AllowList<Int>.allExcept([1, 2]).rule else {
            Issue.record("expected a blacklist rule")
            return
        }
        #expect(denied == [1, 2])
    }

    @Test func whitelistAndBlacklistOfTheSameSetAreComplements() async {
        await propertyCheck(count: 100, input: Gen.int(in: 0...20).set(ofAtMost: 0...10), Gen.int(in: 0...20)) {
            listed, element in
            let only = AllowList.only(listed)
            let except = AllowList.allExcept(listed)
            let viaFilter = AllowList<Int>.filter { listed.contains($0) }
            #expect(only.isAllowed(element) != except.isAllowed(element))
            #expect(only.isAllowed(element) == viaFilter.isAllowed(element))
            #expect(only.isAllowed(element) == listed.contains(element))
        }
    }
}
