import Foundation

/// The shipped capability table (`config/capabilities.yml`) built into the kit, so a gateway
/// started by the kit (tests, `wearable-sim testbed`) applies it wherever the kit runs: a
/// copied `wearable-sim` outside the checkout, a package that depends on this one. A test
/// holds this copy to the file byte for byte.
public enum ShippedCapabilities {
    /// The YAML of `config/capabilities.yml`.
    public static let yaml = #"""
# Capability table: which device models and OS versions have which Core Motion capabilities.
#
# The gateway never takes capabilities from the device's word: it resolves them from the
# `model`, `platform` and `osVersion` of the device's `hello` with this table, and checks every
# data frame against them (`notAvailable`, CMErrorNotAvailable 109). Reference: docs/access-checks.md.
# The facts cited below come from Apple's Core Motion SDK headers and documentation and WWDC
# sessions (the numbers in brackets are sections of the team's Core Motion notes, which are not
# part of this repository); provenance tags: [H] SDK header, [D] Apple docs, [W] WWDC,
# [C] community observation (not an Apple guarantee).
#
# Format
#   rules:                        every rule that applies to a device adds its capabilities
#     - capabilities: [...]       deviceMotion, batchedSensors, headphoneMotion, waterSubmersion,
#                                 pedometer, pedometerEvents, altimeter, sensorRecorder
#       models: [...]             model patterns, case-sensitive; any one matching is enough:
#                                   "Apple Watch SE"          exactly this model
#                                   "AirPods Pro*"            every model starting with "AirPods Pro"
#                                   "Apple Watch Series 8+"   "Apple Watch Series " + a number >= 8,
#                                                             optionally + " " + more ("iPhone 15 Pro")
#       platforms:                hello `platform` -> oldest `osVersion` (dotted numbers, compared
#         watchOS: "10.0"         numerically: 10.1 > 9.6.2, 10 == 10.0); quote versions
#       why: "..."                the documentation the rule rests on (for people; not checked)
#
# A model no rule covers has no capabilities, so all its data frames fail with notAvailable.
# Headphones streamed by a phone: the hello's `model` is the headphones (as the simulator sends
# it), or a phone's hello names them in `headphones`; rules covering that name, on the phone's
# platform and OS, then add headphoneMotion (and nothing else) to the phone.
#
# Reload: SIGHUP re-reads this file together with the device registry; a file with errors is
# rejected as a whole and the previous table stays in force.

rules:
  # ---------------------------------------------------------------- Apple Watch
  - capabilities: [deviceMotion]
    models: ["Apple Watch*"]
    platforms: {watchOS: "3.0"}
    why: >-
      CMMotionManager device motion exists on watchOS since watchOS 2 per the docs, but device
      motion on the watch arrived with watchOS 3 (WWDC16 session 713) [1, 5; D, W].

  - capabilities: [pedometer, sensorRecorder]
    models: ["Apple Watch*"]
    platforms: {watchOS: "2.0"}
    why: >-
      CMPedometer is available from watchOS 2 [7; H, D]. CMSensorRecorder (50 Hz accelerometer
      history) is available from watchOS 2 [6; H, D].

  - capabilities: [pedometerEvents]
    models: ["Apple Watch*"]
    platforms: {watchOS: "3.0"}
    why: CMPedometer pause/resume event updates need watchOS 3 [7; H, D].

  - capabilities: [altimeter]
    models: ["Apple Watch Series 3+", "Apple Watch SE*", "Apple Watch Ultra*"]
    platforms: {watchOS: "4.0"}
    why: >-
      CMAltimeter relative altitude exists from watchOS 2 [8; H, D], but only watches with a
      barometric altimeter report it (isRelativeAltitudeAvailable); Apple's technical
      specifications list that hardware from Apple Watch Series 3 (which
      shipped with watchOS 4) and on every SE and Ultra.

  - capabilities: [batchedSensors]
    models: ["Apple Watch Series 8+", "Apple Watch Ultra*"]
    platforms: {watchOS: "10.0"}
    why: >-
      CMBatchedSensorManager (800 Hz accelerometer, 200 Hz device motion, one batch a second) is
      declared for watchOS 10.0 only (API_AVAILABLE(watchos(10.0))) and WWDC23 names Apple Watch
      Series 8 and Ultra as the hardware "and presumably later" [4; H, W]. Series 9 and later and
      Ultra 2 are assumed (Apple has not said). Apple Watch SE is not listed.

  - capabilities: [waterSubmersion]
    models: ["Apple Watch Ultra*"]
    platforms: {watchOS: "9.0"}
    why: >-
      CMWaterSubmersionManager is available from watchOS 9.0 and waterSubmersionAvailable is true
      only on Apple Watch Ultra; false on every other device and in Simulator [3; H, D].

  # ---------------------------------------------------------------- iPhone
  - capabilities: [deviceMotion, pedometer, pedometerEvents, altimeter, sensorRecorder]
    models: ["iPhone 8+", "iPhone X*", "iPhone SE (2nd generation)", "iPhone SE (3rd generation)"]
    platforms: {iOS: "10.0"}
    why: >-
      Device motion from iOS 4 [1, 5; D]; CMPedometer from iOS 8 with events from iOS 10 [7; H, D];
      CMAltimeter from iOS 8 [8; H, D]; CMSensorRecorder from iOS 9 [6; H, D]. iOS 10 covers all
      five. The model list is the operator's choice of phones (all have the motion coprocessor and
      a barometer per Apple's technical specifications); older phones
      are unknown and get nothing.

  # ---------------------------------------------------------------- Headphones (via a phone)
  - capabilities: [headphoneMotion]
    models: ["AirPods Pro*", "AirPods Max*", "AirPods (3rd generation)", "Beats Fit Pro*"]
    platforms: {iOS: "14.0", iPadOS: "14.0", macOS: "14.0"}
    why: >-
      CMHeadphoneMotionManager is available from iOS/iPadOS 14 and macOS 14 (WWDC23) [2; D, H, W].
      Apple only says "motion-capable Apple headphones"; third-party libraries list AirPods Pro
      (all generations), AirPods Max, AirPods (3rd generation) and Beats Fit Pro [2; C]. The
      platform and version are those of the phone (or Mac) that streams the head tracking. The
      watchOS 7 label in the docs is unexplained [2; open question 7], so watchOS is not listed.

"""#

    /// Writes the table to `directory/capabilities.yml` (creating the directory) and returns its path.
    public static func write(into directory: URL) throws -> String {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("capabilities.yml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }
}
