import Foundation

extension InboundJournal {
    /// The file beside the journal naming the run that last opened it (`{journal.path}.run`).
    package var runMarkerPath: String { path + ".run" }

    /// Records `run` as the run of this journal's process and returns the run recorded before.
    ///
    /// That earlier run is over: this journal is open, so this process holds the file's lock,
    /// which a process keeps until it exits or closes the journal (the last step of its graceful
    /// stop). The kernel gives the guarantee, not a clock: a clustered restart on the same disk
    /// may take its name over from that run at once (``LeaseMember``'s `succeeds`), where any
    /// other run waits for the store to find the earlier run's row expired.
    /// - Returns: the earlier run, or nil when none recorded one here.
    package func succeedRun(_ run: String) throws -> String? {
        let earlier = (try? String(contentsOfFile: runMarkerPath, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        // Written whole or not at all: a crash mid-write leaves the earlier marker.
        try Data((run + "\n").utf8).write(to: URL(fileURLWithPath: runMarkerPath), options: .atomic)
        return earlier?.isEmpty == false ? earlier : nil
    }
}
