import Coffer
import Foundation
import Testing

@Suite("coffer get, put and rm")
struct ValueCommandTests {
    @Test func putStoresJSONThatGetPrints() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        let put = try workspace.coffer(
            ["put", "--collection", "notes", "n1"] + workspace.rawKeyArguments,
            stdin: Data(#"{"title": "Hello", "tags": ["a", "b"], "n": 3, "ok": true, "none": null}"#.utf8))
        #expect(put.status == 0, "\(put.err)")

        let get = try workspace.coffer(["get", "--collection", "notes", "n1"] + workspace.rawKeyArguments)
        #expect(get.status == 0, "\(get.err)")
        // Coffer's automatic JSON codec stores sorted keys.
        #expect(get.out == #"{"n":3,"none":null,"ok":true,"tags":["a","b"],"title":"Hello"}"# + "\n")

        let json = try workspace.coffer(["get", "--json", "--collection", "notes", "n1"] + workspace.rawKeyArguments)
        let row = try json.json()
        #expect(row["collection"] as? String == "notes")
        #expect(row["key"] as? String == "n1")
        #expect((row["value"] as? [String: Any])?["title"] as? String == "Hello")
        #expect(row["metadata"] is NSNull)
    }

    @Test func putRawStoresBytesThatGetRawReturns() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        let bytes = Data([0, 1, 2, 0xFF, 0xFE, 10, 13, 0x7B])
        try bytes.write(to: workspace.directory.file("blob.bin"))
        let put = try workspace.coffer(
            ["put", "--raw", "--file", workspace.path("blob.bin"), "--collection", "blobs", "b1"]
                + workspace.rawKeyArguments)
        #expect(put.status == 0, "\(put.err)")

        let raw = try workspace.coffer(["get", "--raw", "--collection", "blobs", "b1"] + workspace.rawKeyArguments)
        #expect(raw.status == 0)
        #expect(raw.stdout == bytes)

        let text = try workspace.coffer(["get", "--collection", "blobs", "b1"] + workspace.rawKeyArguments)
        #expect(text.status == 1)
        #expect(text.err.contains("not JSON"))

        let json = try workspace.coffer(["get", "--json", "--collection", "blobs", "b1"] + workspace.rawKeyArguments)
        let encoded = try #require(try json.json()["valueBase64"] as? String)
        #expect(Data(base64Encoded: encoded) == bytes)
    }

    @Test func binaryCodableRowsPrintAsTheirJSON() throws {
        struct Note: Codable { var title: String; var when: Date; var tags: [String]; var stars: [Int] }
        let workspace = Workspace()
        try workspace.createWithRawKey()
        let note = Note(
            title: "Hi \"there\"", when: Date(timeIntervalSinceReferenceDate: 60), tags: ["a"], stars: [1, 2])
        try BinaryEncoder().encode(note).write(to: workspace.directory.file("note.bin"))
        let put = try workspace.coffer(
            ["put", "--raw", "--file", workspace.path("note.bin"), "--collection", "notes", "n1"]
                + workspace.rawKeyArguments)
        #expect(put.status == 0, "\(put.err)")

        let expected = #"{"stars":[1,2],"tags":["a"],"title":"Hi \"there\"","when":60}"#
        let get = try workspace.coffer(["get", "--collection", "notes", "n1"] + workspace.rawKeyArguments)
        #expect(get.status == 0, "\(get.err)")
        #expect(get.out == expected + "\n")

        let json = try workspace.coffer(["get", "--json", "--collection", "notes", "n1"] + workspace.rawKeyArguments)
        #expect((try json.json()["value"] as? [String: Any])?["title"] as? String == "Hi \"there\"")

        let export = try workspace.coffer(["export-json", "--collection", "notes"] + workspace.rawKeyArguments)
        #expect(export.status == 0, "\(export.err)")
        #expect(export.out.contains(#""value":"# + expected))

        let raw = try workspace.coffer(["get", "--raw", "--collection", "notes", "n1"] + workspace.rawKeyArguments)
        #expect(raw.stdout.first == 0xC1, "--raw still gives the stored bytes")
    }

    @Test func putStoresMetadataThatGetMetadataPrints() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        let put = try workspace.coffer(
            ["put", "k", "--metadata", #"{"rev":2}"#] + workspace.rawKeyArguments, stdin: Data("\"value\"".utf8))
        #expect(put.status == 0, "\(put.err)")
        let metadata = try workspace.coffer(["get", "k", "--metadata"] + workspace.rawKeyArguments)
        #expect(metadata.out == #"{"rev":2}"# + "\n")
        let value = try workspace.coffer(["get", "k"] + workspace.rawKeyArguments)
        #expect(value.out == "\"value\"\n")
    }

    @Test func putRejectsInvalidJSONWithoutEchoingIt() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        let marker = "VALUE-MARKER-\(UUID().uuidString)"
        let put = try workspace.coffer(
            ["put", "k"] + workspace.rawKeyArguments, stdin: Data("{not json \(marker)".utf8))
        #expect(put.status == 1)
        #expect(put.err.contains("not valid JSON"))
        #expect(!put.err.contains(marker) && !put.out.contains(marker))
    }

    @Test func putReadsTheValueAfterAPassphraseOnStandardInput() throws {
        let workspace = Workspace()
        let keyFile = workspace.path("db.key")
        let environment = ["PW": Workspace.passphrase]
        let created = try workspace.coffer(
            ["create", "--database", workspace.database, "--new-key-file", keyFile, "--passphrase-env", "PW"],
            environment: environment)
        try #require(created.status == 0)
        let keyArguments = ["--database", workspace.database, "--key-file", keyFile]
        let put = try workspace.coffer(
            ["put", "k", "--passphrase-stdin"] + keyArguments, stdin: Data("\(Workspace.passphrase)\n[1, 2]\n".utf8))
        #expect(put.status == 0, "\(put.err)")
        let get = try workspace.coffer(["get", "k", "--passphrase-env", "PW"] + keyArguments, environment: environment)
        #expect(get.out == "[1,2]\n")
    }

    @Test func rmRemovesKeysOrAWholeCollection() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try workspace.importLines(Workspace.rows(4, collection: "a") + Workspace.rows(2, collection: "b"))

        let removed = try workspace.coffer(
            ["rm", "--collection", "a", "k0", "k1", "missing", "--json"] + workspace.rawKeyArguments)
        #expect(removed.status == 0, "\(removed.err)")
        #expect(try removed.json()["removed"] as? Int == 2)
        let gone = try workspace.coffer(["get", "--collection", "a", "k0"] + workspace.rawKeyArguments)
        #expect(gone.status == 1)
        #expect(gone.err.contains("no row"))

        let all = try workspace.coffer(["rm", "--collection", "a", "--all"] + workspace.rawKeyArguments)
        #expect(all.status == 0)
        #expect(all.out.contains("Removed 2 row(s)"))
        let listed = try workspace.coffer(["ls"] + workspace.rawKeyArguments)
        #expect(listed.out == "b\t2\n")

        #expect(try workspace.coffer(["rm", "--collection", "b"] + workspace.rawKeyArguments).status == 2)
    }
}
