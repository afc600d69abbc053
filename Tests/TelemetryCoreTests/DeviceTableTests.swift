import Testing

@testable import TelemetryCore

/// The per-device table keeps value semantics although its values live in shared boxes, and
/// mutates a uniquely held value in place (an 800 Hz stream must not copy its sample windows).
@Suite("Device table")
struct DeviceTableTests {
    let watch = DeviceID("watch-1")!
    let phone = DeviceID("phone-1")!

    @Test("inserting, mutating and removing through the subscript")
    func subscriptLifecycle() {
        var table = DeviceTable<[Int]>()
        table[watch, default: []].append(1)
        table[watch]?.append(2)
        table[phone] = [7]
        #expect(table[watch] == [1, 2])
        #expect(table.count == 2)
        #expect(table.contains(phone))
        #expect(Set(table.keys) == [watch, phone])

        table[phone] = nil
        #expect(!table.contains(phone))
        // Clearing the value through a mutation removes the device too.
        table.clear(watch)
        #expect(table.isEmpty)
        table[phone]?.append(3)  // a mutation of a missing device inserts nothing
        #expect(table.isEmpty)
    }

    @Test("a copy is independent of the original in both directions")
    func copiesAreIndependent() {
        var original = DeviceTable<[Int]>()
        original[watch] = [1]
        var copy = original
        copy[watch]!.append(2)
        #expect(original[watch] == [1])
        #expect(copy[watch] == [1, 2])
        original[watch]!.append(3)
        original[phone] = [9]
        #expect(copy[watch] == [1, 2])
        #expect(!copy.contains(phone))
        #expect(original[watch] == [1, 3])
    }

    @Test("a uniquely held value is mutated in place, without copying its buffer")
    func mutationInPlace() {
        var table = DeviceTable<[Int]>()
        var values: [Int] = []
        values.reserveCapacity(64)
        table[watch] = values
        values = []  // the table holds the only reference to the buffer now
        let before = table[watch]!.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        for index in 0..<32 { table[watch]!.append(index) }
        let after = table[watch]!.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        #expect(before == after)
        #expect(table[watch]!.count == 32)
    }

    @Test("update changes a value in place, leaves copies alone and does nothing for a missing device")
    func updateInPlace() {
        var table = DeviceTable<[Int]>()
        #expect(table.update(watch, { $0.append(1) }) == nil)
        #expect(table.isEmpty)
        var values: [Int] = []
        values.reserveCapacity(64)
        table[watch] = values
        values = []
        let before = table[watch]!.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        for index in 0..<32 { #expect(table.update(watch, { $0.append(index); return $0.count }) == index + 1) }
        #expect(table[watch]!.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } == before)
        let copy = table
        table.update(watch) { $0.removeAll() }
        #expect(copy[watch]?.count == 32)
        #expect(table[watch] == [])
    }
}

extension DeviceTable {
    /// Sets a device's value to nil through the mutating accessor (not the setter).
    fileprivate mutating func clear(_ device: DeviceID) {
        func reset(_ value: inout Value?) { value = nil }
        reset(&self[device])
    }

    fileprivate subscript(device: DeviceID, default defaultValue: @autoclosure () -> Value) -> Value {
        get { self[device] ?? defaultValue() }
        set { self[device] = newValue }
    }
}
