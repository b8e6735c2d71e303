import Testing
@testable import Coffer

@Test func collectionKeyOrders() {
    #expect(CollectionKey(collection: "a", key: "b") < CollectionKey(collection: "b", key: "a"))
}
