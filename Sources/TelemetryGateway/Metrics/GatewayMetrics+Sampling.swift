import GatewayJournal
import CoreMetrics
import MQTTTransport

extension GatewayMetrics {
    /// Records a connection event of the subscriber or publisher.
    func recordConnectionEvent(_ event: MQTTClientEvent, connection: String) {
        switch event {
        case .connected:
            connections[connection]?.increment()
            connected[connection]?.record(1)
        case .disconnected, .refused:
            connected[connection]?.record(0)
        case .connectFailed:
            connectionFailures[connection]?.increment()
            connected[connection]?.record(0)
        case .sessionTakenOver:
            sessionTakeovers[connection]?.increment()
            connected[connection]?.record(0)
        case .connecting, .subscriptionFailed, .subscribed, .reconnectHeld:
            break
        }
    }

    /// Samples queue depths and the publisher's counters; returns the statistics to diff
    /// against next time (the transport counts cumulatively, the metrics are counters).
    func sample(
        queues: [HandoffQueue<WorkItem>], budget: BufferBudget, journal: InboundJournal?, publisher: MQTTClientStatistics, previous: MQTTClientStatistics
    ) -> MQTTClientStatistics {
        for (shard, queue) in queues.enumerated() where shard < queueDepth.count {
            queueDepth[shard].record(queue.depth)
        }
        bufferedBytes.record(budget.bufferedBytes)
        if let journal { sample(journal: journal.statistics) }
        if publisher.publishesAcknowledged > previous.publishesAcknowledged {
            publisherAcknowledged.increment(by: Int64(publisher.publishesAcknowledged - previous.publishesAcknowledged))
        }
        if publisher.publishesFailed > previous.publishesFailed {
            publisherFailed.increment(by: Int64(publisher.publishesFailed - previous.publishesFailed))
        }
        publisherInFlight.record(publisher.publishesInFlight)
        return publisher
    }

    /// Counts the subscriber's receive pauses and read groups since `previous`; returns the
    /// statistics to diff against next time.
    func sample(subscriber: MQTTClientStatistics, previous: MQTTClientStatistics) -> MQTTClientStatistics {
        if subscriber.receivePauses > previous.receivePauses {
            subscriberReceivePauses.increment(by: Int64(subscriber.receivePauses - previous.receivePauses))
        }
        if subscriber.readGroups > previous.readGroups {
            subscriberReadGroups.increment(by: Int64(subscriber.readGroups - previous.readGroups))
        }
        return subscriber
    }

    /// Records the journal's levels.
    func sample(journal: InboundJournal.Statistics) {
        journalUsedBytes.record(journal.usedBytes)
        journalLiveRecords.record(journal.liveRecords)
        journalBypassing.record(journal.bypassing ? 1 : 0)
        journalOldestRecordAge.record(journal.oldestRecordAge)
    }
}
