import TelemetryCore

extension SimulatedDevice {
    /// An Apple Watch Series 7 (watchOS 10.1) that publishes everything a Series 9 does,
    /// including `batched/*`, which needs Series 8 or later: the gateway answers those with
    /// `notAvailable` (CMErrorNotAvailable 109); its other streams pass.
    /// - Parameters:
    ///   - id: device id (topic level).
    ///   - activity: tennis (default), baseball or walking.
    public static func appleWatchSeries7(id: String, activity: Activity = .tennis) -> SimulatedDevice {
        var device = appleWatchSeries9(id: id, activity: activity)
        device.descriptor.model = "Apple Watch Series 7"
        return device
    }

    /// An Apple Watch Series 9 whose app the user denied motion access: `hello` and
    /// `authorization` say `denied`, yet it keeps publishing data, which the gateway answers with
    /// `notAuthorized` (CMErrorNotAuthorized 111).
    /// - Parameter id: device id (topic level).
    public static func appleWatchSeries9MotionDenied(id: String) -> SimulatedDevice {
        var device = appleWatchSeries9(id: id, activity: .tennis)
        device.descriptor.authorization = .denied
        return device
    }

    /// An Apple Watch Series 9 that never publishes `workout`, so its `batched/*` frames arrive
    /// outside a running workout session: the gateway answers them with `noActiveWorkout`
    /// (CMErrorInvalidAction 108); its other streams pass.
    /// - Parameter id: device id (topic level).
    public static func appleWatchSeries9WithoutWorkout(id: String) -> SimulatedDevice {
        var device = appleWatchSeries9(id: id, activity: .baseball)
        device.enabledStreams = Set(device.streams).subtracting([InboundStream.workout.rawValue])
        return device
    }
}

extension SimulatedFleet {
    /// One device per access rule it breaks, with ids that `config/devices.yml` registers so that
    /// exactly the intended check fails:
    ///
    /// | id | device | fails with |
    /// |---|---|---|
    /// | `watch-s7-1` | ``SimulatedDevice/appleWatchSeries7(id:activity:)`` | `notAvailable` on `batched/*` |
    /// | `watch-denied-1` | ``SimulatedDevice/appleWatchSeries9MotionDenied(id:)`` | `notAuthorized` on every data stream |
    /// | `watch-nodepth-1` | ``SimulatedDevice/appleWatchUltra2(id:)``, registered without `submersion.*` | `notEntitled` on `submersion/*` |
    /// | `watch-noworkout-1` | ``SimulatedDevice/appleWatchSeries9WithoutWorkout(id:)`` | `noActiveWorkout` on `batched/*` |
    /// | `watch-unlisted-1` | ``SimulatedDevice/appleWatchSeries9(id:activity:)``, not registered | `unknownDevice` on every stream |
    public static func ruleBreakers() -> [SimulatedDevice] {
        [
            .appleWatchSeries7(id: "watch-s7-1"),
            .appleWatchSeries9MotionDenied(id: "watch-denied-1"),
            .appleWatchUltra2(id: "watch-nodepth-1"),
            .appleWatchSeries9WithoutWorkout(id: "watch-noworkout-1"),
            .appleWatchSeries9(id: "watch-unlisted-1", activity: .walking),
        ]
    }
}
