import GatewayJournal
import CoreMetrics
import Logging

/// The router's side of the inbound journal, on the network thread: appends a frame's record,
/// waiting up to `journal.maxWait` for room, and when the frame goes on without one (the
/// journal full, bypassed or failing) counts it and says why, at most once per interval. Every
/// record's ``FrameRelease`` is made here, for live frames and replayed ones alike.
struct JournalAppender: Sendable {
    let journal: InboundJournal
    /// Clustered: what each journaled frame's broker acknowledgement waits for; nil for a
    /// single gateway, which acknowledges at once.
    let acknowledgements: AcknowledgementsAfterOutputs?
    /// How long a full journal may block the network thread (`journal.maxWait`).
    let maximumWait: Double
    let metrics: GatewayMetrics
    let logger: Logger
    private let bypassLog: RateLimitedLog

    init(
        journal: InboundJournal, acknowledgements: AcknowledgementsAfterOutputs?, maximumWait: Double, metrics: GatewayMetrics, clock: any GatewayClock,
        logger: Logger
    ) {
        self.journal = journal
        self.acknowledgements = acknowledgements
        self.maximumWait = maximumWait
        self.metrics = metrics
        self.logger = logger
        bypassLog = RateLimitedLog(interval: 10, clock: clock)
    }

    /// Journals a record bound for `shard`'s worker; nil when it goes on unjournaled (counted).
    func append(_ record: JournalRecord, shard: Int) -> FrameRelease? {
        switch journal.append(record, shard: shard, maxWait: maximumWait) {
        case .stored(let ticket, let waited):
            if waited > 0 { metrics.journalWaitSeconds.increment(by: waited) }
            return release(ticket)
        case .full(let waited):
            bypass(
                waited: waited, level: .warning,
                because: "the journal stayed full for journal.maxWait (journal.sizeBytes \(journal.capacity)); it is bypassed without waiting until it is at most half full")
        case .bypassed:
            bypass(waited: 0, level: .warning, because: "the journal is bypassed until it is at most half full (journal.sizeBytes \(journal.capacity))")
        case .failed(let waited, let reason):
            bypass(waited: waited, level: .error, because: "cannot write the journal \(journal.path): \(reason)")
        case .closed:
            break
        }
        return nil
    }

    /// Counts a frame that goes on without its journal record, and says why (rate-limited).
    /// The release of a record journaled under `ticket` (also a replayed one of an earlier run).
    func release(_ ticket: JournalTicket) -> FrameRelease {
        FrameRelease(ticket: ticket, journal: journal, acknowledgements: acknowledgements)
    }

    private func bypass(waited: Double, level: Logger.Level, because reason: @autoclosure () -> String) {
        metrics.journalWaitSeconds.increment(by: waited)
        metrics.journalBypassed.increment()
        if bypassLog.shouldLog() {
            logger.log(level: level, "\(reason()); frames go on unjournaled and would not survive a crash (see gateway_journal_bypassed_total)")
        }
    }
}
