import Foundation
import Testing

@Suite("coffer prefs")
struct PrefsCommandTests {
    @Test func setGetAndListASuite() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        for (key, json) in [("theme", #""dark""#), ("volume", "7"), ("beta", "true"), ("tags", #"["a","b"]"#)] {
            let set = try workspace.coffer(["prefs", "set", "--suite", "app", key, json] + workspace.rawKeyArguments)
            #expect(set.status == 0, "\(set.err)")
        }
        let get = try workspace.coffer(["prefs", "get", "--suite", "app", "volume"] + workspace.rawKeyArguments)
        #expect(get.status == 0, "\(get.err)")
        #expect(get.out == "7\n")

        let list = try workspace.coffer(["prefs", "ls", "--json", "--suite", "app"] + workspace.rawKeyArguments)
        #expect(list.status == 0, "\(list.err)")
        let values = try list.json()
        #expect(values["theme"] as? String == "dark")
        #expect(values["beta"] as? Bool == true)
        #expect(values["tags"] as? [String] == ["a", "b"])

        let other = try workspace.coffer(["prefs", "ls", "--json", "--suite", "other"] + workspace.rawKeyArguments)
        #expect(try other.json().isEmpty, "suites are independent")

        let missing = try workspace.coffer(["prefs", "get", "--suite", "app", "nope"] + workspace.rawKeyArguments)
        #expect(missing.status != 0)
        let bad = try workspace.coffer(["prefs", "set", "--suite", "app", "x", "{not json"] + workspace.rawKeyArguments)
        #expect(bad.status != 0)
    }
}
