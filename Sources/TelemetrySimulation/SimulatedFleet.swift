/// Ready-made mixes of simulated devices.
public enum SimulatedFleet: Sendable {
    /// `count` devices cycling through Ultra 2 (diving), Series 9 (tennis), AirPods Pro,
    /// Series 9 (baseball), iPhone 15 Pro. Ids are `watch-ultra-N`, `watch-s9-N`, `buds-N`,
    /// `phone-N`, numbered from 1 per prefix; the first three devices cover every stream.
    /// - Parameter count: number of devices (0 or more).
    public static func mixed(count: Int) -> [SimulatedDevice] {
        var counters: [String: Int] = [:]
        func nextId(_ prefix: String) -> String {
            let number = counters[prefix, default: 0] + 1
            counters[prefix] = number
            return "\(prefix)-\(number)"
        }
        return (0..<max(count, 0)).map { index in
            switch index % 5 {
            case 0: .appleWatchUltra2(id: nextId("watch-ultra"))
            case 1: .appleWatchSeries9(id: nextId("watch-s9"), activity: .tennis)
            case 2: .airPodsPro2(id: nextId("buds"))
            case 3: .appleWatchSeries9(id: nextId("watch-s9"), activity: .baseball)
            default: .iPhone15Pro(id: nextId("phone"))
            }
        }
    }
}
