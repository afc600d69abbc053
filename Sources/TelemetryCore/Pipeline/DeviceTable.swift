/// Per-device state keyed by device, each value in its own copy-on-write box.
///
/// A `Dictionary` stores its values inline in its hash table, which is between 37.5 % and 75 %
/// full, and doubles while it grows. With a few hundred bytes of access state or a few kilobytes
/// of derivation state per device, the empty slots cost more than the devices: 100,000 hellos
/// made a 100 MB table for 37 MB of access state. Here an empty slot costs a pointer.
///
/// Value semantics are kept: copies of a table share boxes, and a box is copied before a
/// mutation when it is shared (as the standard library's collections do), so a mutation through
/// the subscript of a uniquely held table never copies the value's own buffers.
struct DeviceTable<Value: Sendable>: Sendable {
    /// One device's value. Only mutated while uniquely referenced, hence `@unchecked Sendable`.
    private final class Box: @unchecked Sendable {
        /// Optional so that a mutation through the subscript can clear it in place.
        var value: Value?

        init(_ value: Value) {
            self.value = value
        }
    }

    private var boxes: [DeviceID: Box] = [:]

    /// Creates an empty table.
    init() {}

    /// The number of devices in the table.
    var count: Int { boxes.count }

    /// Whether the table is empty.
    var isEmpty: Bool { boxes.isEmpty }

    /// The devices in the table, in no particular order.
    var keys: some Collection<DeviceID> { boxes.keys }

    /// Whether the table has a value for `device`.
    func contains(_ device: DeviceID) -> Bool { boxes.index(forKey: device) != nil }

    /// Calls `body` with the device's value to change in place and returns its result, or
    /// returns nil (without calling it) when the device has no value. For the hot paths: unlike
    /// the subscript's `_modify` it needs no coroutine frame (an allocation per access) and no
    /// check afterwards whether the value was removed (which loaded the whole value).
    @discardableResult
    mutating func update<Result>(_ device: DeviceID, _ body: (inout Value) throws -> Result) rethrows -> Result? {
        guard let index = boxes.index(forKey: device) else { return nil }
        let box = uniqueBox(at: index)
        return try body(&box.value!)
    }

    /// The box at `index`, copied first when another table shares it (copy on write).
    private mutating func uniqueBox(at index: [DeviceID: Box].Index) -> Box {
        if !isKnownUniquelyReferenced(&boxes.values[index]) {
            boxes.values[index] = Box(boxes.values[index].value!)
        }
        return boxes.values[index]
    }

    /// The value of a device; setting `nil` removes it. Mutations happen in place.
    subscript(device: DeviceID) -> Value? {
        // `_read` lends the boxed value: reading one field of a device's state must not copy
        // the whole state (kilobytes for derivation state, with a retain of each buffer).
        _read {
            if let box = boxes[device] { yield box.value } else { yield nil }
        }
        set {
            if let newValue { boxes[device] = Box(newValue) } else { boxes[device] = nil }
        }
        _modify {
            if let index = boxes.index(forKey: device) {
                let box = uniqueBox(at: index)
                defer {
                    if box.value == nil { boxes[device] = nil }
                }
                yield &box.value
            } else {
                var value: Value?
                defer {
                    if let value { boxes[device] = Box(value) }
                }
                yield &value
            }
        }
    }
}
