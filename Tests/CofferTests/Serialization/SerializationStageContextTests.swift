import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// A custom stage exercised with a context built by hand, as a user's own tests would.
@Suite struct SerializationStageContextTests {
    /// A toy stage that binds its row: it appends one byte derived from the associated data.
    struct TaggingStage: SerializationStage {
        var stageID: UInt8 { 200 }
        var name: String { "tagging" }
        var kind: SerializationStageKind { .transform }
        let seen = Locked<[[UInt8]]>([])

        func encode(_ input: Data, context: SerializationStageContext) throws -> SerializationStageOutput? {
            let associated = context.associatedData(parameters: Data([1]))
            seen.withLock { $0.append(associated) }
            return SerializationStageOutput(parameters: Data([1]), payload: input + [Self.tag(associated)])
        }

        func decode(_ payload: Data, parameters: Data, context: SerializationStageContext) throws -> Data {
            guard let last = payload.last, last == Self.tag(context.associatedData(parameters: parameters)) else {
                throw SerializationError(.authenticationFailed, stage: name, reason: "the tag does not match this row")
            }
            return payload.dropLast()
        }

        static func tag(_ bytes: [UInt8]) -> UInt8 { bytes.reduce(0) { $0 &+ $1 } }
    }

    @Test func aHandBuiltContextDrivesACustomStage() throws {
        let stage = TaggingStage()
        let context = SerializationStageContext(collection: "notes", key: "n1", stageID: stage.stageID)
        #expect(context.collection == "notes")
        #expect(context.key == "n1")
        #expect(context.role == .object)
        let output = try #require(try stage.encode(Data("hello".utf8), context: context))
        #expect(try stage.decode(output.payload, parameters: output.parameters, context: context) == Data("hello".utf8))

        let otherRow = SerializationStageContext(collection: "notes", key: "n2", stageID: stage.stageID)
        let metadata = SerializationStageContext(collection: "notes", key: "n1", role: .metadata, stageID: 200)
        #expect(otherRow.associatedData(parameters: Data([1])) != context.associatedData(parameters: Data([1])))
        #expect(metadata.associatedData(parameters: Data([1])) != context.associatedData(parameters: Data([1])))
    }

    @Test func aHandBuiltContextIsTheOneAChainGivesItsFirstStage() throws {
        let stage = TaggingStage()
        let chain = SerializerChain(codec: .data, stages: [stage])
        _ = try chain.serialize(Data("row".utf8), collection: "notes", key: "n1")
        let fromChain = try #require(stage.seen.withLock { $0.first })
        let byHand = SerializationStageContext(collection: "notes", key: "n1", stageID: stage.stageID)
        #expect(byHand.associatedData(parameters: Data([1])) == fromChain)
    }
}
