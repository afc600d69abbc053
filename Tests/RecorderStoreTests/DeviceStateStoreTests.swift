import Foundation
import Locking
import RecorderStore
import TelemetryCore
import Testing

/// A device state store's file that cannot be opened: moved aside, and a fresh store in its place.
@Suite("Device state store: an unusable file is moved aside")
struct DeviceStateStoreTests {
    private static let device = DeviceID("watch-state-1")!
    /// 2026-11-23 09:15:00 UTC.
    private static let date = Date(timeIntervalSince1970: 1_795_425_300)

    /// Where a store's files were moved aside.
    private final class MovedAside: Sendable {
        let paths = LockedState<[String]>([])
        func withLock<T>(_ body: (inout [String]) -> T) -> T { paths.withLock { body(&$0) } }
    }

    /// A store at `path`, recording where its moved-aside files went.
    private static func store(at path: String) throws -> (DeviceStateStore, MovedAside) {
        let moved = MovedAside()
        let store = try DeviceStateStore(path: path, now: { date }) { movedTo, _ in moved.withLock { $0.append(movedTo) } }
        return (store, moved)
    }

    private static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("state-\(UUID().uuidString)/state.sqlite").path
    }

    private static func saveAndRead(_ store: DeviceStateStore) async throws -> DeviceSnapshot? {
        try await store.save([(device, DeviceSnapshot(lastSeen: 1_000, access: nil, connection: nil, derivations: nil))])
        return try await store.snapshot(of: device)
    }

    @Test("garbage bytes in place of the database: moved aside with its time in the name, and the store works")
    func garbageFile() async throws {
        let path = Self.temporaryPath()
        let (store, moved) = try Self.store(at: path)
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) })
        try garbage.write(to: URL(fileURLWithPath: path))

        #expect(try await Self.saveAndRead(store)?.lastSeen == 1_000)
        let expected = "\(path).corrupt-20261123T091500Z"
        #expect(moved.withLock { $0 } == [expected])
        #expect(FileManager.default.contents(atPath: expected) == garbage, "the old file is kept, unchanged")
        #expect(try await store.devices() == [Self.device])
    }

    @Test("a directory where the database should be: moved aside, and the store works")
    func directoryInPlace() async throws {
        let path = Self.temporaryPath()
        let (store, moved) = try Self.store(at: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)

        #expect(try await Self.saveAndRead(store)?.lastSeen == 1_000)
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: "\(path).corrupt-20261123T091500Z", isDirectory: &isDirectory) && isDirectory.boolValue)
        #expect(moved.withLock { $0.count } == 1)
    }

    @Test("a good database is opened as it is, and a store that cannot be opened for another reason moves nothing")
    func nothingMovedWithoutCause() async throws {
        let path = Self.temporaryPath()
        let (first, _) = try Self.store(at: path)
        _ = try await Self.saveAndRead(first)
        let (second, moved) = try Self.store(at: path)
        #expect(try await second.devices() == [Self.device])
        #expect(moved.withLock { $0 }.isEmpty)

        // The directory replaced by a file: nothing is at the path, so nothing is moved; the error stands.
        let brokenPath = Self.temporaryPath()
        let (broken, brokenMoved) = try Self.store(at: brokenPath)
        let directory = (brokenPath as NSString).deletingLastPathComponent
        try FileManager.default.removeItem(atPath: directory)
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: directory))
        await #expect(throws: (any Error).self) { try await broken.devices() }
        #expect(brokenMoved.withLock { $0 }.isEmpty)
    }
}
