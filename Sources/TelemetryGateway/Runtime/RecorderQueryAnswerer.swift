import CoreMetrics
import MQTTTransport
import TelemetryCore

/// Answers recorder queries one after the other until the query queue is closed and empty, and
/// publishes the error answers of refused queries on a task of their own, so a refusal never
/// waits for the query being answered. Every answer message goes through the recorder's
/// publish budget (``RecorderAnswerBudget``).
struct RecorderQueryAnswerer: Sendable {
    let recorder: RecorderRuntime
    /// The admitted queries, in arrival order.
    let queries: HandoffQueue<RecorderRequest>
    /// Where answers are published.
    let connection: any OutboundConnection
    let metrics: GatewayMetrics

    func run() async {
        let recorder = recorder
        let send = sender()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                while let batch = await recorder.refusals.next() {
                    for request in batch where !Task.isCancelled {
                        await recorder.answer(request, send: send)
                        recorder.refusalSent()
                    }
                }
            }
            while let batch = await queries.next() {
                recorder.metrics.queryQueueDepth.record(queries.depth)
                for request in batch where !Task.isCancelled {
                    await recorder.answer(request, send: send)
                    recorder.finished(request)
                }
            }
            // No query comes any more: the refusals still queued go out, then their task ends.
            recorder.refusals.close()
        }
    }

    /// Publishes one answer message through the budget and counts it (an error event of a
    /// rejected query also as an error event).
    private func sender() -> @Sendable (_ message: MQTTMessage, _ reportsError: Bool) async throws -> Void {
        let client = connection
        let metrics = metrics
        let budget = recorder.answerBudget
        return { message, reportsError in
            try await budget.send(message, on: client)
            metrics.published.increment()
            if reportsError { metrics.errorEvents.increment() }
        }
    }
}
