// The code of PreferencesAndCredentials.md: UserDefaults-style preferences, typed keys and their
// updates, an encrypted suite, the credential store and a connection proxy.

import Coffer
import Foundation

struct WindowLayout: Codable, Sendable {
    var width = 800.0
    var panes = ["main"]
}

extension Preferences.Keys {
    static let darkMode = Preferences.Key<Bool>("darkMode", default: false)
    static let layout = Preferences.Key<WindowLayout>("layout", default: WindowLayout())
}

/// Runs the article's blocks in order on a new database in `directory`.
func preferencesAndCredentials(in directory: URL) throws {
    let db = try openDatabase(in: directory, named: "preferences")  // harness
    let keyring = try Keyring(key: randomKey(), id: 1)  // harness

    let prefs = try Preferences(database: db, suite: "app")
    try prefs.register(defaults: ["volume": 0.8, "theme": "system"])

    prefs.set(true, forKey: "onboarded")
    prefs.set("dark", forKey: "theme")
    let volume = prefs.double(forKey: "volume")      // 0.8, the registered default
    try prefs.flush()                                 // wait until the changes are committed
    try expect(volume == 0.8 && prefs.bool(forKey: "onboarded"), "the default and the set value")  // harness

    let finished = DispatchSemaphore(value: 0)  // harness
    let watching = Task {  // harness
        prefs[.darkMode] = true
        prefs[.layout].width = 1024                      // any Codable & Sendable value
        for await isDark in prefs.updates(for: .darkMode) {
            print(isDark)                                // the current value first, then each change
        }
        finished.signal()  // harness
    }  // harness
    Thread.sleep(forTimeInterval: 0.2)  // harness
    watching.cancel()  // harness
    try expect(finished.wait(timeout: .now() + 10) == .success, "the updates loop ended when cancelled")  // harness
    try expect(prefs[.darkMode] && prefs[.layout].width == 1024, "the typed keys were set")  // harness
    try expect(prefs.bool(forKey: "darkMode"), "the string API reads the typed key")  // harness

    let chain = SerializerChain(codec: Preferences.codec, stages: [.aesGCM(keyring)])
    let secretPrefs = try Preferences(database: db, suite: "tokens", chain: chain)
    secretPrefs.set("token", forKey: "refresh")  // harness
    try secretPrefs.flush()  // harness

    let store = try CredentialStore(database: db, keyring: keyring)
    let id = CredentialID(service: "api.example.com", account: "deploy-bot")

    try store.upsert(CredentialItem(id: id, secret: "s3cr3t-token", label: "Deploy token"))
    let token = try store.item(for: id)?.secretString
    let all = try store.items(forService: "api.example.com")
    try store.delete(id)
    try expect(token == "s3cr3t-token" && all.count == 1, "the credential was stored and read")  // harness

    let proxy = try ConnectionProxy(database: db)
    proxy.setObject("dark", forKey: "theme", inCollection: "settings")
    let theme = try proxy.object(forKey: "theme", inCollection: "settings", as: String.self)  // "dark", at once
    try proxy.flush()                                                                           // committed
    try expect(theme == "dark", "the proxy answers at once")  // harness
}
