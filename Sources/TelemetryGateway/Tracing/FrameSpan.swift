import TelemetryCore
import Tracing

/// One frame's span while its worker processes it (``FrameTracing/begin(_:topic:)``): started
/// at the frame's arrival, ended once its messages are handed to the publisher.
struct FrameSpan: Sendable {
    /// The span itself (recording when sampled).
    let span: any Span
    /// The span's context as a W3C `traceparent` (sampled flag included): the frame's messages
    /// carry it in place of the frame's own.
    let traceParent: TraceParent?
    let clock: any GatewayClock

    /// Ends the span with what the frame came to: its outcome, the rejection's code as an
    /// error status, the number and bytes of the messages it produced.
    func end(_ result: FrameResult, messages: [OutboundMessage]) {
        span.updateAttributes { attributes in
            switch result.outcome {
            case .accepted:
                attributes["wearable.frame.outcome"] = "accepted"
            case .rejected(let code, _):
                attributes["wearable.frame.outcome"] = "rejected"
                attributes["wearable.frame.error"] = code.rawValue
            case .alreadyApplied:
                attributes["wearable.frame.outcome"] = "alreadyApplied"
            }
            attributes["wearable.events.count"] = messages.count
            attributes["wearable.events.bytes"] = messages.reduce(0) { $0 + $1.payload.count }
        }
        if case .rejected(let code, _) = result.outcome { span.setStatus(SpanStatus(code: .error, message: code.rawValue)) }
        span.end(at: FrameTracing.instant(clock.wallTime()))
    }
}
