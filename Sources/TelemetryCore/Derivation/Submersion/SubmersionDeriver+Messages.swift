extension SubmersionDeriver {
    /// `gateway/{id}/submersion/depth-state`, retained, QoS 1.
    func depthStateMessage(_ transition: DepthTransition, limit: Double, context: DerivationContext) -> OutboundMessage {
        let device = context.device.rawValue
        var writer = JSONWriter(capacity: 256)
        writer.object {
            $0.field("deviceId", device)
            $0.field(
                "eventId",
                EventID.make(
                    device, TopicScheme.Leaf.submersionDepthState.rawValue, transition.cause.rawValue, String(describing: transition.date), transition.previous.name,
                    transition.state.name))
            $0.field("state", transition.state.name)
            $0.field("rawValue", transition.state.rawValue)
            $0.field("previous", transition.previous.name)
            $0.field("previousRawValue", transition.previous.rawValue)
            $0.field("depth", transition.depth)
            $0.field("maximumDepth", limit)
            $0.field("cause", transition.cause.rawValue)
            // The watch's own word next to the derived state (null before any measurement).
            if let deviceState {
                $0.field("deviceState", deviceState.name)
                $0.field("deviceStateRawValue", deviceState.rawValue)
            } else {
                $0.key("deviceState")
                $0.null()
            }
            $0.field("date", transition.date)
        }
        return OutboundMessage(.submersionDepthState, of: context.device, in: context.scheme, payload: writer.bytes)
    }

    /// `gateway/{id}/submersion/dive`, QoS 1.
    func diveMessage(_ summary: DiveSummary, context: DerivationContext) -> OutboundMessage {
        var writer = JSONWriter(capacity: 640)
        summary.write(to: &writer, device: context.device)
        return OutboundMessage(.submersionDive, of: context.device, in: context.scheme, payload: writer.bytes)
    }

    /// `gateway/{id}/submersion/temperature`, QoS 1, not retained.
    func temperatureMessage(_ reading: WaterTemperature, context: DerivationContext) -> OutboundMessage {
        let device = context.device.rawValue
        var writer = JSONWriter(capacity: 224)
        writer.object {
            $0.field("deviceId", device)
            $0.field("eventId", EventID.make(device, TopicScheme.Leaf.submersionTemperature.rawValue, String(describing: reading.date)))
            $0.field("temperature", reading.temperature)
            $0.field("temperatureUncertainty", reading.temperatureUncertainty)
            $0.field("converged", temperatureConverged)
            $0.field("depth", lastDepth)
            $0.field("date", reading.date)
        }
        return OutboundMessage(.submersionTemperature, of: context.device, in: context.scheme, payload: writer.bytes)
    }

    /// `gateway/{id}/submersion/ascent-warning`, QoS 1.
    func ascentWarningMessage(_ warning: AscentRateMonitor.Warning, context: DerivationContext) -> OutboundMessage {
        let device = context.device.rawValue
        var writer = JSONWriter(capacity: 288)
        writer.object {
            $0.field("deviceId", device)
            $0.field("eventId", EventID.make(device, TopicScheme.Leaf.submersionAscentWarning.rawValue, String(describing: warning.date)))
            $0.field("ascentRate", warning.rate.rounded(toPlaces: 2))
            $0.field("limit", configuration.ascentRateLimit)
            $0.field("window", configuration.ascentRateWindow)
            $0.field("depth", warning.depth)
            $0.field("fromDepth", warning.fromDepth)
            $0.field("fromDate", warning.fromDate)
            $0.field("date", warning.date)
        }
        return OutboundMessage(.submersionAscentWarning, of: context.device, in: context.scheme, payload: writer.bytes)
    }

    /// `gateway/{id}/submersion/safety-stop`, QoS 1: the dive surfaced without the stop it needed.
    func safetyStopMessage(_ summary: DiveSummary, context: DerivationContext) -> OutboundMessage {
        let device = context.device.rawValue
        let rule = configuration.safetyStop
        let top = rule.depth - rule.tolerance
        let bottom = rule.depth + rule.tolerance
        var writer = JSONWriter(capacity: 512)
        writer.object {
            $0.field("deviceId", device)
            $0.field("eventId", EventID.make(device, TopicScheme.Leaf.submersionSafetyStop.rawValue, String(describing: summary.startDate), String(describing: summary.endDate)))
            $0.field("outcome", summary.safetyStop.rawValue)
            $0.field("maxDepth", summary.maxDepth)
            $0.field("requiredBeyond", rule.requiredBeyond)
            $0.field("stopDepth", rule.depth)
            $0.field("stopTolerance", rule.tolerance)
            $0.field("requiredDuration", rule.duration)
            $0.field("longestStop", DiveSummary.milliseconds(summary.longestSafetyStop))
            $0.field("startDate", summary.startDate)
            $0.field("endDate", summary.endDate)
            $0.field(
                "hint",
                "dive to \(Self.formatted(summary.maxDepth)) m surfaced without a \(Self.formatted(rule.duration)) s safety stop at "
                    + "\(Self.formatted(max(0, top)))–\(Self.formatted(bottom)) m (longest: \(Self.formatted(summary.longestSafetyStop)) s)")
            $0.field("date", summary.endDate)
        }
        return OutboundMessage(.submersionSafetyStop, of: context.device, in: context.scheme, payload: writer.bytes)
    }

    /// A number with at most one decimal, for the hint text.
    static func formatted(_ value: Double) -> String {
        let rounded = value.rounded(toPlaces: 1)
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
