import CoreMetrics
import Foundation
import Logging
import MQTTTransport
import ServiceLifecycle
import TelemetryCore
/// Answers recorder queries one after the other until the query queue is closed and empty.
struct RecorderQueryAnswerer {
    let runtime: GatewayRuntime

    func run() async {
        let publisher = runtime.publisher
        let metrics = runtime.metrics
        while let batch = await runtime.queries.next() {
            runtime.recorderMetrics.queryQueueDepth.record(runtime.queries.depth)
            for request in batch where !Task.isCancelled {
                await runtime.recorder.answer(request) { message in
                    try await publisher.client.send(message)
                    metrics.published.increment()
                    if message.topic.hasSuffix("/errors") { metrics.errorEvents.increment() }  // a rejected query's event
                }
            }
        }
    }
}
