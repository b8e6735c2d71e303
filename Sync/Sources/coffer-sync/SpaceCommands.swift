import ArgumentParser
import CofferSync
import Foundation

/// `coffer-sync create-space`: creates a space from its id, key check and channel.
struct CreateSpaceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-space",
        abstract: "Create a sync space (its key check and channel come from the space's sync key)."
    )

    @OptionGroup var admin: AdminOptions
    @Option(help: "The space's id (a UUID).") var spaceID: UUID
    @Option(help: "The key check, in hex.") var keyCheck: String
    @Option(help: "The LISTEN/NOTIFY channel: coffer_ and up to 56 lowercase hex digits.") var channel: String
    @Option(help: "The key epoch the space starts at.") var keyEpoch = 1

    func validate() throws {
        guard Data(hex: keyCheck) != nil else { throw ValidationError("--key-check is not hex") }
    }

    func run() async throws {
        let check = Data(hex: keyCheck) ?? Data()
        let address = try admin.address()
        try await SyncServerAdmin(address: address).createSpace(
            spaceID: spaceID, keyCheck: check, channel: channel, keyEpoch: keyEpoch
        )
        print("created space \(spaceID.uuidString) on \(address.server)")
    }
}

/// `coffer-sync spaces`: lists the spaces and their devices.
struct SpacesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spaces",
        abstract: "List the sync spaces on the server and their devices."
    )

    @OptionGroup var admin: AdminOptions

    func run() async throws {
        let server = SyncServerAdmin(address: try admin.address())
        for space in try await server.spaces() {
            print("space \(space.spaceID.uuidString)  epoch \(space.keyEpoch)  last seq \(space.lastSequence)")
            for device in try await server.devices(spaceID: space.spaceID) {
                print(
                    "  device \(device.deviceID.uuidString)  role \(device.roleName)\(device.revoked ? "  revoked" : "")"
                )
            }
        }
    }
}

/// `coffer-sync drop-space`: deletes a space, its rows and its device roles.
struct DropSpaceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drop-space",
        abstract: "Delete a sync space with its rows and keys, and drop its device roles."
    )

    @OptionGroup var admin: AdminOptions
    @Option(help: "The space's id.") var spaceID: UUID

    func run() async throws {
        try await SyncServerAdmin(address: try admin.address()).dropSpace(spaceID: spaceID)
        print("dropped space \(spaceID.uuidString)")
    }
}

/// `coffer-sync revoke`: revokes a device of a space.
struct RevokeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Revoke a device: its role may no longer log in and sees nothing.",
        discussion: """
            Rotating the space's sync key needs a remaining device (it re-seals the rows); until \
            then the revoked device still holds the current key, though the server refuses it.
            """
    )

    @OptionGroup var admin: AdminOptions
    @Option(help: "The space's id.") var spaceID: UUID
    @Option(help: "The device's id.") var deviceID: UUID

    func run() async throws {
        try await SyncServerAdmin(address: try admin.address()).revokeDevice(spaceID: spaceID, deviceID: deviceID)
        print("revoked device \(deviceID.uuidString) of space \(spaceID.uuidString)")
    }
}
