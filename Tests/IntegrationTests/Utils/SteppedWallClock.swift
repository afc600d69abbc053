import BrokerTestSupport
import Foundation

/// A wall clock a test can step for a child process: the package's `libWallClockShim.so`,
/// preloaded into the child, adds the offset this keeps in a file to every wall-clock reading
/// (`Date()`, `time()`, `CLOCK_REALTIME`) and leaves the monotonic clocks alone, as an NTP step or
/// a resumed virtual machine would. (Debian's libfaketime 0.9.10 cannot do this: with its
/// monotonic clock left alone, timed waits on that clock end at once.)
struct SteppedWallClock {
    let file: URL

    /// The shim, built with the package: next to the test bundle, or `WG_WALL_CLOCK_SHIM`.
    static var library: URL { builtExecutable("libWallClockShim.so", override: "WG_WALL_CLOCK_SHIM") }

    /// Creates the offset file in `directory`, at no offset.
    init(directory: URL) throws {
        guard FileManager.default.fileExists(atPath: Self.library.path) else {
            throw TestFailure("\(Self.library.path) is missing: swift build builds it (product WallClockShim)")
        }
        file = directory.appendingPathComponent("wall-clock-offset-\(UUID().uuidString.prefix(6))")
        guard FileManager.default.createFile(atPath: file.path, contents: Data(count: 8)) else {
            throw TestFailure("cannot create \(file.path)")
        }
    }

    /// The variables that make a child read this clock.
    var environment: [String: String] {
        ["LD_PRELOAD": Self.library.path, "WG_WALL_CLOCK_OFFSET_FILE": file.path]
    }

    /// Sets the wall clock `seconds` ahead of the real one (negative: behind). The file is
    /// written in place: the children read it through a shared mapping of this very file.
    func step(to seconds: Int64) throws {
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        try handle.write(contentsOf: withUnsafeBytes(of: seconds * 1_000_000_000) { Data($0) })
    }
}
