import Foundation
import GatewayJournal
import GatewayTime
import Testing

/// Stand-in journal files nothing reads any more are removed; a journal open in a process is not.
@Suite("Abandoned stand-in journals")
struct AbandonedJournalTests {
    @Test("the files named prefix…suffix that no process has open are removed; an open journal, other instances' files and the instance's own journal stay")
    func removesOnlyAbandoned() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("abandoned-journals-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = { (name: String) in folder.appendingPathComponent(name).path }
        // A stand-in journal in use (this process holds it open), one an earlier run left, the
        // instance's own journal, another instance's stand-in journal and another file.
        let open = try InboundJournal(path: path("journal-gw-a-stand-in-gw-b.bin"), capacity: 1 << 20, clock: SystemGatewayClock())
        for name in ["journal-gw-a-stand-in-gw-c.bin", "journal-gw-a.bin", "journal-gw-ab-stand-in-gw-c.bin", "journal-gw-a-stand-in-gw-d.bin.run"] {
            #expect(FileManager.default.createFile(atPath: path(name), contents: Data("x".utf8)))
        }
        let removed = InboundJournal.removeAbandoned(in: folder.path, prefix: "journal-gw-a-stand-in-", suffix: ".bin")
        #expect(removed == [path("journal-gw-a-stand-in-gw-c.bin")])
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(left == ["journal-gw-a-stand-in-gw-b.bin", "journal-gw-a-stand-in-gw-d.bin.run", "journal-gw-a.bin", "journal-gw-ab-stand-in-gw-c.bin"])
        // Let go (a stand-in's graceful end), it is abandoned too.
        #expect(!InboundJournal.removeIfAbandoned(path("journal-gw-a-stand-in-gw-b.bin")), "a journal in use was removed")
        open.unlock()
        #expect(InboundJournal.removeIfAbandoned(path("journal-gw-a-stand-in-gw-b.bin")))
        #expect(!InboundJournal.removeIfAbandoned(path("journal-gw-a-stand-in-gw-b.bin")), "removed twice")
    }
}
